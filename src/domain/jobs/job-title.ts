/** The words a job's default title uses for each loss type ("other" reads as "loss"). */
const LOSS_WORDS: Record<string, string> = {
  water: 'water',
  fire: 'fire',
  smoke: 'smoke',
  mold: 'mold',
  storm: 'storm',
  wind: 'wind',
  hail: 'hail',
  flood: 'flood',
  sewage: 'sewage',
  other: 'loss',
};

/** A new job's title when none is given: "Ann Lee - water", "Ann Lee", "Water job" or "New job". */
export function defaultJobTitle(customerName: string | undefined, lossType: string | undefined): string {
  const loss = lossType ? LOSS_WORDS[lossType] : null;
  if (customerName && loss) return `${customerName} - ${loss}`;
  return customerName ?? (loss ? `${loss[0].toUpperCase()}${loss.slice(1)} job` : 'New job');
}
