import { ApiError, invalidRequest, type FieldError } from '../../platform/errors';
import { dateOfDay, dayOfDate } from './drying-records';

/**
 * The day a request names by `day` or `date` (null when it names none), checked against the log's
 * start date: a date before it or past day 365, or a day and a date that disagree, is an error
 * at `at` (`/body`, `/body/rows/3`).
 */
export function resolveDay(given: { day?: number; date?: string }, startDate: string, at: string): { day: number | null; error: FieldError | null } {
  if (given.date === undefined) return { day: given.day ?? null, error: null };
  const fromDate = dayOfDate(startDate, given.date);
  const wrong = (field: string, message: string) => ({ day: null, error: { path: `${at}/${field}`, message } });
  if (fromDate < 1) return wrong('date', `is before the log's start date ${startDate} (day 1)`);
  if (fromDate > 365) return wrong('date', 'is more than 365 days after the start date');
  if (given.day !== undefined && given.day !== fromDate) return wrong('day', `is day ${given.day}, but the date given is day ${fromDate}`);
  return { day: fromDate, error: null };
}

/** A start date at most a year ahead: a log's days and dates then stay within the calendar. */
export function checkStartDate(startDate: string | undefined, today: string): void {
  if (startDate !== undefined && dayOfDate(today, startDate) > 366) {
    throw invalidRequest([{ path: '/body/start_date', message: `is more than a year after today (${today})` }]);
  }
}

/** As resolveDay, answering 400 for a wrong day of the body. */
export function dayOf(body: { day?: number; date?: string }, startDate: string): number | null {
  const { day, error } = resolveDay(body, startDate, '/body');
  if (error) throw invalidRequest([error]);
  return day;
}

/** 422 `date_in_future` when `day` of a log starting `startDate` is after the company's `today`; `at` names the field. */
function refuseFutureDay(day: number, startDate: string, today: string, at: string): void {
  if (day <= dayOfDate(startDate, today)) return;
  const date = dateOfDay(startDate, day);
  throw new ApiError(422, 'date_in_future', `Day ${day} (${date}) is after today (${today}) in the company's timezone: record what happened on site when it has happened.`, { errors: [{ path: at, message: `is ${date}, after today (${today})` }] });
}

/** The day a body names by `day` or `date`, else today's day of the log; refused when after today. */
export function dayOrToday(body: { day?: number; date?: string }, startDate: string, today: string): number {
  const day = dayOf(body, startDate) ?? dayOfDate(startDate, today);
  if (day < 1) throw invalidRequest([{ path: '/body/date', message: `today (${today}) is before the log's start date ${startDate}; give the date` }]);
  refuseFutureDay(day, startDate, today, body.date !== undefined ? '/body/date' : '/body/day');
  return day;
}
