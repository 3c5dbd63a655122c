/**
 * A realistic data set loaded straight into the tables: companies with teams and keys, and many
 * jobs with customers (names, phones written in varied ways, emails), loss addresses, carriers
 * and claim numbers. Search columns are computed by the service's own searchColumns, so the rows
 * are exactly what create_job would have written.
 */
import type { Knex } from 'knex';
import { createCompany } from '../src/domain/admin/company-setup';
import { newApiKey, newId } from '../src/platform/ids';
import { setLastJobNumber } from '../src/platform/counters';
import { digitsOf, searchColumns } from '../src/domain/jobs/search-text';

const FIRST = [
  'Maria',
  'Tom',
  'Grace',
  'Ben',
  'Priya',
  'Luis',
  'Hannah',
  'Omar',
  'Keisha',
  'Dmitri',
  'Aiko',
  'Sean',
  'Fatima',
  'Caleb',
  'Rosa',
  'Wei',
  'Noah',
  'Ingrid',
  'Tariq',
  'Elena',
];
const LAST = [
  'Alvarez',
  'Nguyen',
  'Whitfield',
  'Carter',
  'Shah',
  'Okafor',
  'Kowalski',
  'Haddad',
  'Brooks',
  'Ivanov',
  'Tanaka',
  'Murphy',
  'Rahman',
  'Lindqvist',
  'Moreno',
  'Chen',
  'Fischer',
  'Abbott',
  'Delgado',
  'Osei',
];
const STREETS = [
  'Birch Lane',
  'Oak Street',
  'Lakeview Dr',
  'Mill St',
  'Grand Ave',
  'Cedar Ct',
  'Maple Rd',
  'Prairie Way',
  'River Rd',
  'Elm St',
];
const CITIES: [string, string][] = [
  ['Springfield', 'IL'],
  ['Chatham', 'IL'],
  ['Austin', 'TX'],
  ['Plano', 'TX'],
  ['Fresno', 'CA'],
  ['Tacoma', 'WA'],
  ['Dayton', 'OH'],
  ['Tampa', 'FL'],
];
const CARRIERS = [
  'State Farm',
  'Allstate',
  'Country Financial',
  'Liberty Mutual',
  'Travelers',
  'USAA',
  'Farmers',
  'Nationwide',
];
const LOSS = ['water', 'water', 'water', 'sewage', 'mold', 'storm', 'fire'];

export interface BenchCompany {
  id: string;
  writeKey: string;
  readKey: string;
}

export interface Dataset {
  companies: BenchCompany[];
  /** How many jobs were loaded, in all companies: request i of newJobRequest beyond that is new. */
  loaded: number;
  /** A sample of jobs of the first company, to look up. */
  sample: { id: string; job_number: number; customer: string; phone: string; claim: string }[];
}

/** The newest jobs of each company have their change-feed entry, so that the feed starts full. */
const FEED_ENTRIES_PER_COMPANY = 2000;

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length];

function phoneIn(i: number): string {
  const digits = String(2000000000 + ((i * 7919) % 7999999999)).padStart(10, '0');
  const [a, b, c] = [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)];
  return [`(${a}) ${b}-${c}`, `${a}.${b}.${c}`, `${a}${b}${c}`, `+1 ${a} ${b} ${c}`][i % 4];
}

/** The customer and loss of the i-th job: names, phones, addresses and claims vary with i. */
function jobFields(i: number) {
  const name = `${pick(FIRST, i)} ${pick(LAST, Math.floor(i / FIRST.length))}`;
  const [city, region] = pick(CITIES, i * 3);
  const carrier = pick(CARRIERS, i * 5);
  return {
    name,
    phone: phoneIn(i),
    email: `${name.toLowerCase().replace(' ', '.')}${i}@example.com`,
    street: `${100 + (i % 9800)} ${pick(STREETS, i * 7)}`,
    city,
    region,
    carrier,
    claim: `${carrier.slice(0, 2).toUpperCase()}-${26 - (i % 3)}-${String(100000 + ((i * 104729) % 899999))}`,
    loss: pick(LOSS, i),
  };
}

/**
 * A create_job request like those the data set's jobs came from. The bench's creates use these, so
 * that the cases after them search among jobs like the others rather than thousands of the same.
 */
export function newJobRequest(i: number, operationId: string) {
  const job = jobFields(i);
  return {
    operation_id: operationId,
    customer_name: job.name,
    customer_phone: job.phone,
    customer_email: job.email,
    address_line1: job.street,
    city: job.city,
    region: job.region,
    carrier: job.carrier,
    claim_number: job.claim,
    loss_type: job.loss,
  };
}

async function createBenchCompany(
  db: Knex,
  index: number,
): Promise<BenchCompany & { personId: string; firstStatusId: string }> {
  const company = await createCompany(db, { name: `Bench Restoration ${index + 1}`, credits: 1000 });
  const [person] = await db('people')
    .insert({ id: newId('per'), company_id: company.id, name: `Bench Owner ${index + 1}`, role: 'Owner' })
    .returning('id');
  const keys = { write: newApiKey(), read: newApiKey() };
  for (const [scope, key] of Object.entries(keys)) {
    await db('api_keys').insert({
      id: newId('key'),
      company_id: company.id,
      person_id: person.id,
      scope,
      prefix: key.prefix,
      secret_hash: key.hash,
    });
  }
  const status = await db('statuses').where({ company_id: company.id }).orderBy('position').first('id');
  return {
    id: company.id,
    writeKey: keys.write.key,
    readKey: keys.read.key,
    personId: person.id,
    firstStatusId: status.id,
  };
}

export async function loadDataset(
  db: Knex,
  jobsPerCompany: number,
  log: (line: string) => void,
): Promise<Dataset> {
  const companies = [];
  const sample: Dataset['sample'] = [];
  const batch = 1000;
  for (let c = 0; c < 3; c++) {
    const company = await createBenchCompany(db, c);
    companies.push(company);
    for (let start = 0; start < jobsPerCompany; start += batch) {
      const jobs = [];
      const contacts = [];
      const links = [];
      const changes = [];
      for (let n = start + 1; n <= Math.min(start + batch, jobsPerCompany); n++) {
        const i = c * jobsPerCompany + n;
        const { name, phone, email, street, city, region, carrier, claim, loss } = jobFields(i);
        const title = `${name} - ${loss}`;
        const jobId = newId('job');
        const contactId = newId('con');
        jobs.push({
          id: jobId,
          company_id: company.id,
          job_number: n,
          title,
          status_id: company.firstStatusId,
          loss_type: loss,
          address_line1: street,
          city,
          region,
          carrier,
          claim_number: claim,
          created_by: company.personId,
          created_at: new Date(Date.UTC(2025, 0, 1) + n * 600_000),
          ...searchColumns({
            title,
            address_line1: street,
            city,
            claim_number: claim,
            carrier,
            people: [{ name, phone, email }],
          }),
        });
        contacts.push({
          id: contactId,
          company_id: company.id,
          name,
          phone,
          phone_digits: digitsOf(phone),
          email,
        });
        links.push({
          id: newId('jc'),
          company_id: company.id,
          job_id: jobId,
          contact_id: contactId,
          role: 'customer',
        });
        if (n > jobsPerCompany - FEED_ENTRIES_PER_COMPANY) {
          changes.push({
            company_id: company.id,
            txid: db.raw('pg_current_xact_id()::text::bigint'),
            kind: 'changes',
            action: 'job.created',
            summary: `Created job #${n} ${title}`,
            job_id: jobId,
            job_number: n,
            person_id: company.personId,
            via_key: true,
          });
        }
        if (c === 0 && n % Math.max(1, Math.floor(jobsPerCompany / 1000)) === 0)
          sample.push({ id: jobId, job_number: n, customer: name, phone, claim });
      }
      await db('jobs').insert(jobs);
      await db('contacts').insert(contacts);
      await db('job_contacts').insert(links);
      if (changes.length) await db('change_entries').insert(changes);
    }
    await setLastJobNumber(db, company.id, jobsPerCompany);
    log(`  company ${c + 1}: ${jobsPerCompany} jobs`);
  }
  // As pgbench does: vacuumed and analysed, the state autovacuum keeps a live database in. Right
  // after a bulk load the trigram indexes still hold every new row in their pending lists, which
  // each search reads through (10 ms instead of 1 for a phone number).
  await db.raw('vacuum analyze');
  return {
    companies: companies.map(({ id, writeKey, readKey }) => ({ id, writeKey, readKey })),
    loaded: 3 * jobsPerCompany,
    sample,
  };
}
