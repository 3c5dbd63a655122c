/** Moments written in a company's time, for what people read: file names, PDF pages. */

/** `2026-11-20 14-03-05`: sorts by time and is a valid file name everywhere. */
export function fileStamp(at: Date, timezone: string): string {
  const part = partsOf(at, timezone);
  return `${part.year}-${part.month}-${part.day} ${part.hour}-${part.minute}-${part.second}`;
}

/** `Nov 20, 2026, 2:03 PM` */
export function readableMoment(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: timezone, dateStyle: 'medium', timeStyle: 'short' }).format(at);
}

/** `November 25, 2026` */
export function readableDate(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: timezone, dateStyle: 'long' }).format(at);
}

function partsOf(at: Date, timezone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
}
