import { ApiError, invalidRequest, type FieldError } from '../../platform/errors';
import { dateOfDay, dayOfDate } from './drying-records';

/**
 * The day a request names by `day` or `date` (null when it names none), checked against the log's
 * start date: a date before it or past day 365, or a day and a date that disagree, is an error
 * at `at` (`/body`, `/body/rows/3`).
 */
export function resolveDay(
  given: { day?: number; date?: string },
  startDate: string,
  at: string,
): { day: number | null; error: FieldError | null } {
  if (given.date === undefined) return { day: given.day ?? null, error: null };
  const fromDate = dayOfDate(startDate, given.date);
  const wrong = (field: string, message: string) => ({
    day: null,
    error: { path: `${at}/${field}`, message },
  });
  if (fromDate < 1) return wrong('date', `is before the log's start date ${startDate} (day 1)`);
  if (fromDate > 365) return wrong('date', 'is more than 365 days after the start date');
  if (given.day !== undefined && given.day !== fromDate)
    return wrong('day', `is day ${given.day}, but the date given is day ${fromDate}`);
  return { day: fromDate, error: null };
}

/** A start date at most a year ahead: a log's days and dates then stay within the calendar. */
export function checkStartDate(startDate: string | undefined, today: string): void {
  if (startDate !== undefined && dayOfDate(today, startDate) > 366) {
    throw invalidRequest([
      { path: '/body/start_date', message: `is more than a year after today (${today})` },
    ]);
  }
}

/** As resolveDay, answering 400 for a wrong day of the body. */
export function dayOf(body: { day?: number; date?: string }, startDate: string): number | null {
  const { day, error } = resolveDay(body, startDate, '/body');
  if (error) throw invalidRequest([error]);
  return day;
}

/** The error of a day after the company's `today`, at `at`; null for today and earlier. */
export function futureDayError(day: number, startDate: string, today: string, at: string): FieldError | null {
  if (day <= dayOfDate(startDate, today)) return null;
  return { path: at, message: `is ${dateOfDay(startDate, day)}, after today (${today})` };
}

/** 422 `date_in_future` for these errors, found in a request that records what happened on site. */
export function dateInFuture(errors: FieldError[], today: string): ApiError {
  const what = errors.length === 1 ? 'A date' : `${errors.length} dates`;
  return new ApiError(
    422,
    'date_in_future',
    `${what} after today (${today}) in the company's timezone: record what happened on site once it has happened (\`errors\` names where).`,
    { errors },
  );
}

/** 422 when the day a body names (by `date`, else `day`) is after the company's today. */
export function refuseFutureDay(
  body: { date?: string },
  day: number,
  startDate: string,
  today: string,
): void {
  const future = futureDayError(day, startDate, today, body.date !== undefined ? '/body/date' : '/body/day');
  if (future) throw dateInFuture([future], today);
}

/** The day a body names by `day` or `date`, else today's day of the log; refused when after today. */
export function dayOrToday(body: { day?: number; date?: string }, startDate: string, today: string): number {
  const day = dayOf(body, startDate) ?? dayOfDate(startDate, today);
  if (day < 1)
    throw invalidRequest([
      {
        path: '/body/date',
        message: `today (${today}) is before the log's start date ${startDate}; give the date`,
      },
    ]);
  refuseFutureDay(body, day, startDate, today);
  return day;
}
