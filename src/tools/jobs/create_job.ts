import type { WriteHandler } from '../tool';
import { newId } from '../../platform/ids';
import type { NewRow } from '../../platform/undo';
import { nextJobNumber } from '../../platform/counters';
import { findReferralSource, findTeammate, firstStatusId } from '../../domain/company/lookups';
import { newJobDetail, type JobRow } from '../../domain/jobs/job-records';
import { appliedProfileSql, type JobProgramProfile } from '../../domain/company/program-profiles';
import { digitsOf, searchColumns } from '../../domain/jobs/search-text';
import { defaultJobTitle } from '../../domain/jobs/job-title';
import {
  possibleDuplicatesColumn,
  toDuplicates,
  type DuplicateRow,
} from '../../domain/jobs/possible-duplicates';

export const create_job: WriteHandler<'create_job'> = async (ctx, { body }) => {
  const { db, caller, rows } = ctx;
  const assignee = body.assignee ? await findTeammate(db, caller.companyId, body.assignee) : null;
  const referralSource = body.referral_source
    ? await findReferralSource(db, caller.companyId, body.referral_source)
    : null;

  const title = body.title ?? defaultJobTitle(body.customer_name, body.loss_type);
  const hasCustomer = Boolean(body.customer_name || body.customer_phone || body.customer_email);
  const customer = {
    name: body.customer_name ?? 'Customer',
    phone: body.customer_phone ?? null,
    email: body.customer_email ?? null,
  };
  const customerAddress = {
    address_line1: body.address_line1 ?? null,
    city: body.city ?? null,
    region: body.region ?? null,
    postal_code: body.postal_code ?? null,
  };

  // The job, its customer and its assignee go in in one round trip: their ids are made here.
  const jobId = newId('job');
  const contact = hasCustomer
    ? { id: newId('con'), ...customer, ...customerAddress, phone_digits: digitsOf(customer.phone ?? '') }
    : null;
  const linked: NewRow[] = [];
  if (contact) {
    linked.push(
      { table: 'contacts', row: contact },
      {
        table: 'job_contacts',
        row: { id: newId('jc'), job_id: jobId, contact_id: contact.id, role: 'customer' },
      },
    );
  }
  if (assignee)
    linked.push({ table: 'job_assignees', row: { id: newId('asg'), job_id: jobId, person_id: assignee.id } });
  const jobRow = {
    id: jobId,
    job_number: nextJobNumber(db, caller.companyId),
    title,
    status_id: firstStatusId(db, caller.companyId),
    loss_type: body.loss_type ?? null,
    date_of_loss: body.date_of_loss ?? null,
    cause_of_loss: body.cause_of_loss ?? null,
    water_category: body.water_category ?? null,
    adjuster: body.adjuster ?? null,
    address_line1: body.address_line1 ?? null,
    city: body.city ?? null,
    region: body.region ?? null,
    postal_code: body.postal_code ?? null,
    carrier: body.carrier ?? null,
    claim_number: body.claim_number ?? null,
    policy_number: body.policy_number ?? null,
    referral_source: referralSource,
    created_by: caller.personId,
    ...searchColumns({ ...body, title, people: hasCustomer ? [customer] : [] }),
  };
  const facts = {
    id: jobId,
    phone: customer.phone,
    address_line1: body.address_line1,
    claim_number: body.claim_number,
  };
  const {
    possible_duplicates: duplicates,
    program_profile: programProfile,
    ...job
  } = await rows.insertTogether<
    JobRow & { possible_duplicates: DuplicateRow[]; program_profile: JobProgramProfile }
  >(
    [{ table: 'jobs', row: jobRow }, ...linked],
    [
      db.raw('(select name from statuses s where s.id = jobs.status_id) as status_name'),
      possibleDuplicatesColumn(db, caller.companyId, facts),
      // Its carrier's program profile, read by the insert's own statement.
      db.raw(`${appliedProfileSql(false, 'jobs')} as program_profile`),
    ],
  );

  ctx.changes.add(
    {
      kind: 'changes',
      data: { action: 'job.created', title, status: { id: job.status_id, name: job.status_name } },
      summary: `Created job #${job.job_number} ${title}`,
      job: { id: job.id, job_number: job.job_number },
    },
    { undo: true },
  );
  // Answered from the rows just written, in get_job's shape, rather than read back.
  const detail = newJobDetail(job, {
    createdByName: caller.personName,
    people: contact ? [{ ...contact, role: 'customer' }] : [],
    assignees: assignee ? [{ id: assignee.id, name: assignee.name }] : [],
    programProfile,
  });
  return { ...detail, possible_duplicates: toDuplicates(duplicates) };
};
