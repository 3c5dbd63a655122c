/** A new company with its job numbers, default board and default referral sources. */
import type { Knex } from 'knex';
import { newId } from '../../platform/ids';
import { createJobNumbers } from '../../platform/counters';

export const DEFAULT_STATUSES = [
  'New',
  'Inspection',
  'Mitigation',
  'Drying',
  'Rebuild',
  'Invoicing',
  'Closed',
];
export const DEFAULT_REFERRAL_SOURCES = [
  'Insurance carrier',
  'Plumber',
  'Property manager',
  'Repeat customer',
  'Web search',
  'Word of mouth',
];
export const DEFAULT_TIMEZONE = 'America/Chicago';

export interface CompanyRow {
  id: string;
  name: string;
  timezone: string;
  pricing_region: string | null;
  credits: number;
}

export async function createCompany(
  db: Knex,
  input: { name: string; timezone?: string; pricing_region?: string; credits?: number },
): Promise<CompanyRow> {
  return db.transaction(async (trx) => {
    const [company] = await trx('companies')
      .insert({
        id: newId('co'),
        name: input.name,
        timezone: input.timezone ?? DEFAULT_TIMEZONE,
        pricing_region: input.pricing_region ?? null,
        credits: input.credits ?? 0,
      })
      .returning(['id', 'name', 'timezone', 'pricing_region', 'credits']);
    await createJobNumbers(trx, company.id);
    await trx('statuses').insert(
      DEFAULT_STATUSES.map((name, i) => ({ id: newId('st'), company_id: company.id, name, position: i + 1 })),
    );
    await trx('referral_sources').insert(
      DEFAULT_REFERRAL_SOURCES.map((name, i) => ({
        id: newId('ref'),
        company_id: company.id,
        name,
        position: i + 1,
      })),
    );
    return company as CompanyRow;
  });
}

/** The database's zone names by lower case, read once per database: they change only with its tzdata. */
const zoneLists = new WeakMap<Knex, Promise<Map<string, string>>>();

function zonesOf(db: Knex): Promise<Map<string, string>> {
  let zones = zoneLists.get(db);
  if (!zones) {
    zones = db('pg_timezone_names')
      .pluck('name')
      .then((names: string[]) => new Map(names.map((name) => [name.toLowerCase(), name])))
      .catch((error: unknown) => {
        zoneLists.delete(db);
        throw error;
      });
    zoneLists.set(db, zones);
  }
  return zones;
}

/**
 * The canonical spelling of an IANA timezone that both PostgreSQL (which turns the company's
 * calendar days into moments) and JavaScript's Intl know, or null. Intl alone is not enough: it
 * still accepts names that PostgreSQL's tzdata has dropped, such as `US/Pacific-New`, and every
 * date filter of such a company would then fail in the database.
 */
export async function canonicalTimezone(db: Knex, name: string): Promise<string | null> {
  const known = (await zonesOf(db)).get(name.trim().toLowerCase());
  if (!known) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: known });
    return known;
  } catch {
    return null;
  }
}
