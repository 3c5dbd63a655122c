/** Moments written in a company's time, for what people read: file names, PDF pages. */

/** `2026-11-20 14-03-05`: sorts by time and is a valid file name everywhere. */
export function fileStamp(at: Date, timezone: string): string {
  const part = partsOf(at, timezone);
  return `${part.year}-${part.month}-${part.day} ${part.hour}-${part.minute}-${part.second}`;
}

/** `Nov 20, 2026, 2:03 PM` */
export function readableMoment(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(at);
}

/** `November 25, 2026` */
export function readableDate(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: timezone, dateStyle: 'long' }).format(at);
}

/** One formatter per timezone: making one costs far more than formatting with it (a page of feed entries formats a hundred). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timezone: string): Intl.DateTimeFormat {
  let format = formatters.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timezone, format);
  }
  return format;
}

function partsOf(
  at: Date,
  timezone: string,
): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  const format = formatterOf(timezone);
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
  };
}

/** The calendar date in the zone: `2026-11-25`. */
export function localDate(at: Date, timezone: string): string {
  const part = partsOf(at, timezone);
  return `${part.year}-${part.month}-${part.day}`;
}

/** The wall-clock time in the zone with its offset: `2026-11-25T11:04:05-06:00`. */
export function localTimeWithOffset(at: Date, timezone: string): string {
  const part = partsOf(at, timezone);
  const wall = Date.UTC(
    Number(part.year),
    Number(part.month) - 1,
    Number(part.day),
    Number(part.hour),
    Number(part.minute),
    Number(part.second),
  );
  const minutes = Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const offset = `${sign}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
  return `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}${offset}`;
}
