/**
 * The baselines, a process of their own like the service (so that neither shares a thread with
 * the load generator): bare Express 5 routes on the service's database with no validation,
 * authentication, logging or write pipeline. They tell what the service's own layers cost, and
 * what this machine can do at best.
 *
 *   GET  /jobs/:id      the same get_job lookup: the one query get_job runs, shaped the same way
 *   GET  /jobs/:id/row  the job's own row, one trivial query: what a request costs at the least
 *   POST /jobs          every row create_job writes for the same request, in one statement:
 *                       what this machine can write at best
 *
 * `node --import tsx bench/baseline.ts` with PORT, DATABASE_URL or DATA_DIR, and BASELINE_KEY (a
 * write key of the company the routes work for, looked up once at start).
 */
import express from 'express';
import { openDatabase } from '../src/infrastructure/db/connect';
import { findCaller } from '../src/platform/auth';
import { newId } from '../src/platform/ids';
import { jobNumbers } from '../src/platform/counters';
import { loadJobDetail } from '../src/domain/jobs/job-records';
import { digitsOf, searchColumns } from '../src/domain/jobs/search-text';
import type { newJobRequest } from './dataset';

/**
 * Every row create_job's write pipeline leaves (the job with its search columns, its customer and
 * the link, the change entry, the undo record and the stored answer) in one statement, which is
 * its own transaction: one round trip, the least a create can cost on this database.
 */
const CREATE_IN_ONE_STATEMENT = `
  with job as (
    insert into jobs (id, company_id, job_number, title, status_id, loss_type, address_line1, city, region, carrier, claim_number, created_by, search_text, search_digits)
    values (:jobId, :companyId, nextval(:jobNumbers::regclass), :title, :statusId, :loss_type, :address_line1, :city, :region, :carrier, :claim_number, :personId, :search_text, :search_digits)
    returning *),
  contact as (
    insert into contacts (id, company_id, name, phone, phone_digits, email, address_line1, city, region)
    values (:contactId, :companyId, :customer_name, :customer_phone, :phoneDigits, :customer_email, :address_line1, :city, :region)),
  link as (insert into job_contacts (id, company_id, job_id, contact_id, role) values (:linkId, :companyId, :jobId, :contactId, 'customer')),
  change as (
    insert into change_entries (company_id, txid, kind, action, summary, job_id, job_number, person_id, key_id, via_key)
    select :companyId, pg_current_xact_id()::text::bigint, 'changes', 'job.created', title, id, job_number, :personId, :keyId, true from job),
  undo as (
    insert into undo_actions (id, company_id, key_id, tool, kind, summary, job_id, job_number, rows)
    select :undoId, :companyId, :keyId, 'create_job', 'changes', title, id, job_number, jsonb_build_array(jsonb_build_object('table', 'jobs', 'id', id)) from job),
  answer as (
    insert into idempotency_records (company_id, operation_id, tool, fingerprint, key_id, status, body)
    select :companyId, :operationId, 'create_job', :operationId, :keyId, 201, row_to_json(job)::text from job)
  select * from job`;

async function main(): Promise<void> {
  const db = await openDatabase({
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: process.env.DATA_DIR || null,
  });
  const caller = await findCaller(db, process.env.BASELINE_KEY ?? '');
  if (!caller) throw new Error('BASELINE_KEY is not a key of this database');
  const companyId = caller.companyId;
  const status = await db('statuses').where({ company_id: companyId }).orderBy('position').first('id');

  const app = express();
  app.use(express.json());
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/jobs/:id', async (req, res) => {
    res.json(await loadJobDetail(db, caller, req.params.id));
  });
  app.get('/jobs/:id/row', async (req, res) => {
    const { rows } = await db.raw('select * from jobs where id = ? and company_id = ?', [
      req.params.id,
      companyId,
    ]);
    if (rows.length === 0) res.status(404).end();
    else res.json(rows[0]);
  });
  app.post('/jobs', async (req, res) => {
    const job = req.body as ReturnType<typeof newJobRequest>;
    const title = `${job.customer_name} - ${job.loss_type}`;
    const customer = { name: job.customer_name, phone: job.customer_phone, email: job.customer_email };
    const { rows } = await db.raw(CREATE_IN_ONE_STATEMENT, {
      ...job,
      title,
      companyId,
      jobNumbers: jobNumbers(companyId),
      statusId: status.id,
      personId: caller.personId,
      keyId: caller.keyId,
      jobId: newId('job'),
      contactId: newId('con'),
      linkId: newId('jc'),
      undoId: newId('undo'),
      operationId: job.operation_id,
      phoneDigits: digitsOf(job.customer_phone),
      ...searchColumns({ ...job, title, people: [customer] }),
    });
    res.status(201).json(rows[0]);
  });
  const server = app.listen(Number(process.env.PORT), '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => db.destroy().then(() => process.exit(0))));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
