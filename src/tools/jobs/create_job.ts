import type { WriteHandler } from '../../platform/handler';
import { newId } from '../../platform/ids';
import { nextJobNumber } from '../../platform/counters';
import { findReferralSource, findTeammate, firstStatusId } from '../context/lookups';
import { loadJobDetail } from './job-records';
import { digitsOf, searchColumns } from './search-text';

const LOSS_WORDS: Record<string, string> = { water: 'water', fire: 'fire', smoke: 'smoke', mold: 'mold', storm: 'storm', wind: 'wind', hail: 'hail', flood: 'flood', sewage: 'sewage', other: 'loss' };

export const create_job: WriteHandler<'create_job'> = async (ctx, { body }) => {
  const { db, caller, rows } = ctx;
  const assignee = body.assignee ? await findTeammate(db, caller.companyId, body.assignee) : null;
  const referralSource = body.referral_source ? await findReferralSource(db, caller.companyId, body.referral_source) : null;

  const title = body.title ?? defaultTitle(body.customer_name, body.loss_type);
  const hasCustomer = Boolean(body.customer_name || body.customer_phone || body.customer_email);
  const customer = { name: body.customer_name ?? 'Customer', phone: body.customer_phone ?? null, email: body.customer_email ?? null };
  const customerAddress = { address_line1: body.address_line1 ?? null, city: body.city ?? null, region: body.region ?? null, postal_code: body.postal_code ?? null };

  const job = await rows.insert<{ id: string; job_number: number }>('jobs', {
    id: newId('job'),
    job_number: nextJobNumber(db, caller.companyId),
    title,
    status_id: firstStatusId(db, caller.companyId),
    loss_type: body.loss_type ?? null,
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
  });
  if (hasCustomer) {
    const contact = await rows.insert('contacts', { id: newId('con'), ...customer, ...customerAddress, phone_digits: digitsOf(customer.phone ?? '') });
    await rows.insert('job_contacts', { id: newId('jc'), job_id: job.id, contact_id: contact.id, role: 'customer' });
  }
  if (assignee) await rows.insert('job_assignees', { id: newId('asg'), job_id: job.id, person_id: assignee.id });

  ctx.changes.add({ kind: 'changes', action: 'job.created', summary: `Created job #${job.job_number} ${title}`, job: { id: job.id, job_number: job.job_number } });
  return loadJobDetail(db, caller, job.id);
};

function defaultTitle(customerName: string | undefined, lossType: string | undefined): string {
  const loss = lossType ? LOSS_WORDS[lossType] : null;
  if (customerName && loss) return `${customerName} - ${loss}`;
  return customerName ?? (loss ? `${loss[0].toUpperCase()}${loss.slice(1)} job` : 'New job');
}
