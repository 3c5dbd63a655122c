/**
 * The baselines, a process of their own like the service (so that neither shares a thread with
 * the load generator): bare Express 5 routes on the service's database with no validation,
 * authentication, logging or write pipeline. They tell what the service's own layers cost, and
 * what this machine can do at best.
 *
 *   GET  /jobs/:id      the same get_job lookup: the one query get_job runs, shaped the same way
 *   GET  /jobs/:id/row  the job's own row, one trivial query: what a request costs at the least
 *   POST /jobs          what create_job must write at the least (the job with its search columns,
 *                       its customer, the link and a change entry) in one transaction; with an
 *                       operation_id also the two rows the write pipeline adds (undo record and
 *                       stored answer)
 *
 * `node --import tsx bench/baseline.ts` with PORT, DATABASE_URL or DATA_DIR, and BASELINE_KEY (a
 * write key of the company the routes work for, looked up once at start).
 */
import express from 'express';
import { openDatabase } from '../src/db/connect';
import { findCaller } from '../src/platform/auth';
import { newId } from '../src/platform/ids';
import { loadJobDetail } from '../src/tools/jobs/job-records';
import { digitsOf, searchColumns } from '../src/tools/jobs/search-text';

async function main(): Promise<void> {
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.DATA_DIR || null });
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
    const { rows } = await db.raw('select * from jobs where id = ? and company_id = ?', [req.params.id, companyId]);
    if (rows.length === 0) res.status(404).end();
    else res.json(rows[0]);
  });
  app.post('/jobs', async (req, res) => {
    const { customer_name: name, customer_phone: phone, operation_id: operationId } = req.body as { customer_name: string; customer_phone: string; operation_id?: string };
    const job = await db.transaction(async (trx) => {
      const [row] = await trx('jobs')
        .insert({
          id: newId('job'),
          company_id: companyId,
          job_number: trx.raw(`nextval('"job_numbers_${companyId}"')`),
          title: name,
          status_id: status.id,
          created_by: caller.personId,
          ...searchColumns({ title: name, people: [{ name, phone }] }),
        })
        .returning('*');
      const [contact] = await trx('contacts').insert({ id: newId('con'), company_id: companyId, name, phone, phone_digits: digitsOf(phone) }).returning('id');
      await trx('job_contacts').insert({ id: newId('jc'), company_id: companyId, job_id: row.id, contact_id: contact.id, role: 'customer' });
      await trx('change_entries').insert({ company_id: companyId, txid: trx.raw('pg_current_xact_id()::text::bigint'), kind: 'changes', action: 'job.created', summary: row.title, person_id: caller.personId, via_key: true });
      if (operationId) {
        const rows = JSON.stringify([{ table: 'jobs', id: row.id, before: null, afterVersion: 1 }]);
        await trx('undo_actions').insert({ id: newId('undo'), company_id: companyId, key_id: caller.keyId, tool: 'create_job', kind: 'changes', summary: row.title, job_id: row.id, job_number: row.job_number, rows });
        await trx('idempotency_records').insert({ company_id: companyId, operation_id: operationId, tool: 'create_job', fingerprint: operationId, key_id: caller.keyId, status: 201, body: JSON.stringify(row) });
      }
      return row;
    });
    res.status(201).json(job);
  });
  const server = app.listen(Number(process.env.PORT), '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => db.destroy().then(() => process.exit(0))));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
