/**
 * Phones are kept as typed; answers also show each in one form, so that the same number typed
 * two ways (`217.555.0142`, `+1 217 555 0142`) reads the same on every job.
 */
import { digitsOf } from '../jobs/search-text';

/** `(217) 555-0142` for a North American number; `+442079460958` for `+44 20 7946 0958`; null when too short to be a phone. */
export function normalPhone(typed: string | null | undefined): string | null {
  if (!typed) return null;
  const digits = digitsOf(typed);
  const international = typed.trim().startsWith('+');
  const northAmerican =
    digits.length === 10 && !international
      ? digits
      : digits.length === 11 && digits.startsWith('1')
        ? digits.slice(1)
        : null;
  if (northAmerican)
    return `(${northAmerican.slice(0, 3)}) ${northAmerican.slice(3, 6)}-${northAmerican.slice(6)}`;
  return digits.length >= 7 ? `${international ? '+' : ''}${digits}` : null;
}
