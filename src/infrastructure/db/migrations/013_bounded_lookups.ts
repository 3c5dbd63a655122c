import type { Knex } from 'knex';

/**
 * Indexes that keep a request's work bounded by its answer, not by the company's history (the
 * scaling gate, test/service/scaling.test.ts, finds the lookups that lacked them):
 * - create_job's duplicate check looks a new job's facts up by equality: the last ten digits of
 *   a contact's phone, the street line with case and spacing aside, and the claim number with
 *   case, spaces and punctuation aside. Expression indexes, so that every write, undo included,
 *   keeps them without code of its own. The company is part of each key: a lookup then has no
 *   condition on `company_id` alone, which an index of the company's rows could also answer.
 *   Until ANALYZE has seen a new company, PostgreSQL guesses it has one row and may pick such an
 *   index, reading every job of a company that grew fast; with one key there is one choice.
 *   A lookup compares the same expression, written exactly as indexed.
 * - list_changes `since` and undo's look-up of the feed entry an action wrote: entries by time.
 * - The foreign keys that undo and the file sweeper delete under: a row is removed only after
 *   PostgreSQL has checked that nothing points at it, and without an index on the pointing
 *   column that check reads the whole table (every company's readings, photos, lines).
 */
export const phoneKey = (company: string, digits: string) => `(${company} || ':' || right(${digits}, 10))`;
export const streetKey = (company: string, street: string) =>
  `(${company} || ':' || lower(regexp_replace(btrim(${street}), '\\s+', ' ', 'g')))`;
export const claimKey = (company: string, claim: string) =>
  `(${company} || ':' || lower(regexp_replace(${claim}, '[^[:alnum:]]+', '', 'g')))`;

const FOREIGN_KEY_INDEXES: [name: string, table: string, columns: string][] = [
  ['estimate_lines_room', 'estimate_lines', 'room_id'],
  ['drying_logs_estimate', 'drying_logs', 'estimate_id'],
  ['drying_readings_area', 'drying_readings', 'area_id'],
  ['drying_notes_area', 'drying_notes', 'area_id'],
  ['drying_skips_area', 'drying_skips', 'area_id'],
  ['photos_file', 'photos', 'company_id, sha256'],
  ['videos_file', 'videos', 'company_id, sha256'],
  ['documents_file', 'documents', 'company_id, sha256'],
];

export async function up(db: Knex): Promise<void> {
  await db.raw(
    `CREATE INDEX contacts_phone_key ON contacts (${phoneKey('company_id', 'phone_digits')}, created_at DESC)`,
  );
  await db.raw(
    `CREATE INDEX jobs_street_key ON jobs (${streetKey('company_id', 'address_line1')}, job_number DESC) WHERE cancelled_at IS NULL`,
  );
  await db.raw(
    `CREATE INDEX jobs_claim_key ON jobs (${claimKey('company_id', 'claim_number')}, job_number DESC) WHERE cancelled_at IS NULL`,
  );
  await db.raw('CREATE INDEX change_entries_at ON change_entries (company_id, at)');
  for (const [name, table, columns] of FOREIGN_KEY_INDEXES)
    await db.raw(`CREATE INDEX ${name} ON ${table} (${columns})`);
}

export async function down(db: Knex): Promise<void> {
  const names = [
    'contacts_phone_key',
    'jobs_street_key',
    'jobs_claim_key',
    'change_entries_at',
    ...FOREIGN_KEY_INDEXES.map(([name]) => name),
  ];
  await db.raw(`DROP INDEX ${names.join(', ')}`);
}
