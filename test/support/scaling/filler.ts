/**
 * A company's history, written straight into the tables in a few set-based statements: jobs with
 * their customer, notes, photos, feed entries and undo records, and on every third job an
 * estimate and a drying log with readings. Every value that a search could find (name, phone,
 * street, claim) is the job's own, so a search for one job's value matches that job whatever the
 * company's size: what such a request reads must then not grow with the company.
 */
import type { Knex } from 'knex';
import { setLastJobNumber } from '../../../src/platform/counters';

export interface FillTarget {
  companyId: string;
  personId: string;
  /** The key whose undo history the filler's actions join. */
  keyId: string;
  statusId: string;
  jobs: number;
}

/** The filled job i's searchable values, for requests that look one up. */
export function fillerJob(i: number) {
  return {
    id: `job_F${i}`,
    jobNumber: i,
    customer: `Filler${i}x Customer`,
    phone: `(555) ${String(1_000_000 + i).slice(1, 4)}-${String(1_000_000 + i).slice(3)}`,
    street: `${i} Filler Street`,
    claim: `FC-${i}X`,
  };
}

export async function fillCompany(db: Knex, target: FillTarget): Promise<void> {
  const { companyId: co, personId: person, keyId: key, statusId: status, jobs } = target;
  const run = (sql: string, bindings: Knex.RawBinding[] = []) => db.raw(sql, bindings);
  const series = `generate_series(1, ${Number(jobs)}) as i`;
  // The values of fillerJob(i), in SQL.
  const phone = `'(555) ' || substr((1000000 + i)::text, 2, 3) || '-' || substr((1000000 + i)::text, 4)`;
  await run(
    `insert into jobs (id, company_id, job_number, title, status_id, loss_type, address_line1, city, region, claim_number, carrier, search_text, search_digits, created_by, created_at)
     select 'job_F' || i, ?, i, 'Filler' || i || 'x Customer - water', ?, 'water', i || ' Filler Street', 'Springfield', 'IL', 'FC-' || i || 'X', 'Acme Mutual',
            lower('Filler' || i || 'x Customer - water | ' || i || ' Filler Street | Springfield | FC-' || i || 'X | Acme Mutual | Filler' || i || 'x Customer'),
            i::text || ' 555' || substr((1000000 + i)::text, 2),
            ?, timestamptz '2024-01-01' + i * interval '10 minutes'
     from ${series}`,
    [co, status, person],
  );
  await run(
    `insert into contacts (id, company_id, name, phone, phone_digits) select 'con_F' || i, ?, 'Filler' || i || 'x Customer', ${phone}, '555' || substr((1000000 + i)::text, 2) from ${series}`,
    [co],
  );
  await run(
    `insert into job_contacts (id, company_id, job_id, contact_id, role) select 'jc_F' || i, ?, 'job_F' || i, 'con_F' || i, 'customer' from ${series}`,
    [co],
  );
  await run(
    `insert into notes (id, company_id, job_id, author_id, text, created_at) select 'note_F' || i || 'n' || n, ?, 'job_F' || i, ?, 'Filler note ' || n, timestamptz '2024-01-01' + i * interval '10 minutes' + n * interval '1 minute' from ${series}, generate_series(1, 3) as n`,
    [co, person],
  );
  await run(
    `insert into stored_files (company_id, sha256, kind, format, bytes, renditions) select ?, 'F' || i || 'p' || n, 'photo', 'jpeg', 1000, '{}'::jsonb from ${series}, generate_series(1, 2) as n`,
    [co],
  );
  await run(
    `insert into photos (id, company_id, job_id, sha256, room, taken_at, taken_at_source, uploaded_by, uploaded_via, version)
     select 'pho_F' || i || 'p' || n, ?, 'job_F' || i, 'F' || i || 'p' || n, 'Kitchen', timestamptz '2024-01-01' + i * interval '10 minutes', 'upload_time', ?, 'api', 1 from ${series}, generate_series(1, 2) as n`,
    [co, person],
  );
  await run(
    `insert into change_entries (company_id, txid, kind, action, summary, job_id, job_number, person_id, key_id, via_key, record_id, at)
     select ?, 1, 'notes', 'note.added', 'Added a note', 'job_F' || i, i, ?, ?, true, 'note_F' || i || 'n' || n, timestamptz '2024-01-01' + i * interval '10 minutes' from ${series}, generate_series(1, 3) as n`,
    [co, person, key],
  );
  await run(
    `insert into undo_actions (id, company_id, key_id, tool, kind, summary, job_id, job_number, rows, created_at)
     select 'undo_F' || i, ?, ?, 'add_note', 'notes', 'Added a note', 'job_F' || i, i,
            jsonb_build_array(jsonb_build_object('table', 'notes', 'id', 'note_F' || i || 'n1', 'before', null, 'afterVersion', 1)), timestamptz '2024-01-01' + i * interval '10 minutes'
     from ${series}`,
    [co, key],
  );
  await setLastJobNumber(db, co, jobs);
  await fillEstimatesAndLogs(run, co, person, `generate_series(3, ${Number(jobs)}, 3) as i`);
}

/** Every third job has an estimate of two rooms and four lines, and a drying log of two areas with readings. */
async function fillEstimatesAndLogs(
  run: (sql: string, bindings?: Knex.RawBinding[]) => Promise<unknown>,
  co: string,
  person: string,
  third: string,
): Promise<void> {
  await run(
    `insert into estimates (id, company_id, job_id, label, region_factor_x100, overhead_rate_bp, profit_rate_bp, tax_rate_bp, created_by, drying_days)
     select 'est_F' || i, ?, 'job_F' || i, 'Estimate 1', 100, 1000, 1000, 0, ?, 3 from ${third}`,
    [co, person],
  );
  await run(
    `insert into estimate_rooms (id, company_id, estimate_id, name, position, drying_days) select 'room_F' || i || 'r' || n, ?, 'est_F' || i, 'Room ' || n, n, 3 from ${third}, generate_series(1, 2) as n`,
    [co],
  );
  await run(
    `insert into estimate_lines (id, company_id, estimate_id, room_id, code, description, unit, quantity_x100, unit_price_cents, position)
     select 'line_F' || i || 'l' || n, ?, 'est_F' || i, 'room_F' || i || 'r' || (1 + n % 2), 'WTR-EXT-CP', 'Water extraction', 'SF', 10000, 125, n from ${third}, generate_series(1, 4) as n`,
    [co],
  );
  await run(
    `insert into drying_logs (id, company_id, job_id, start_date, planned_days, estimate_id) select 'dry_F' || i, ?, 'job_F' || i, date '2024-01-01' + (i % 300), 3, 'est_F' || i from ${third}`,
    [co],
  );
  await run(
    `insert into drying_areas (id, company_id, log_id, name, position) select 'area_F' || i || 'a' || n, ?, 'dry_F' || i, 'Area ' || n, n from ${third}, generate_series(1, 2) as n`,
    [co],
  );
  await run(
    `insert into drying_readings (id, company_id, log_id, area_id, day, location, metric, value_x100, source_of_values, recorded_by, position)
     select 'rdg_F' || i || 'a' || n || 'd' || d, ?, 'dry_F' || i, 'area_F' || i || 'a' || n, d, 'air', 'rh_pct', 5000, 'meter', ?, 1
     from ${third}, generate_series(1, 2) as n, generate_series(1, 3) as d`,
    [co, person],
  );
}
