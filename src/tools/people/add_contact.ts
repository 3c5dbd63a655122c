import { lockedJob, type WriteHandler } from '../tool';
import { invalidRequest, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { jobRefOf } from '../../domain/jobs/job-records';
import { refreshJobSearch } from '../../domain/jobs/search-text';
import { changePerson, contactColumns, jobPerson, personOnJob } from '../../domain/people/contacts';

const DEFAULT_ROLE = 'customer';

/** Adds a new person, links a known one (`contact_id`), or updates the one of that name on the job. */
export const add_contact: WriteHandler<'add_contact'> = async (ctx, { body }) => {
  const { db, caller } = ctx;
  const job = lockedJob(ctx);
  const role = (body.role ?? DEFAULT_ROLE).trim().toLowerCase();

  let contactId = body.contact_id;
  if (contactId && !(await db('contacts').where({ id: contactId, company_id: caller.companyId }).first('id')))
    throw notFound('contact');
  if (!contactId) {
    if (!body.name)
      throw invalidRequest([{ path: '/body/name', message: 'is required unless contact_id is sent' }]);
    const sameName = await db('job_contacts as jc')
      .join('contacts as c', 'c.id', 'jc.contact_id')
      .where('jc.job_id', job.id)
      .whereRaw('lower(c.name) = ?', [body.name.trim().toLowerCase()])
      .first('c.id');
    contactId = sameName?.id;
  }

  const onJob = contactId
    ? await db('job_contacts').where({ job_id: job.id, contact_id: contactId }).first('id')
    : null;
  let outcome: 'added' | 'linked' | 'updated';
  let changed = true;
  if (onJob && contactId) {
    outcome = 'updated';
    // The name only found the person: it does not rename them.
    changed =
      (await changePerson(ctx, await personOnJob(db, job.id, contactId), { ...body, name: undefined }))
        .length > 0;
  } else {
    outcome = contactId ? 'linked' : 'added';
    if (!contactId) {
      const contact = await ctx.rows.insert('contacts', {
        id: newId('con'),
        phone_digits: '',
        ...contactColumns(body),
      });
      contactId = contact.id;
    }
    await ctx.rows.insert('job_contacts', { id: newId('jc'), job_id: job.id, contact_id: contactId, role });
    await refreshJobSearch(ctx, [job.id]);
  }

  const contact = await jobPerson(db, job.id, contactId!);
  const verb = { added: 'Added', linked: 'Linked', updated: 'Updated' }[outcome];
  if (changed) {
    ctx.changes.add(
      {
        kind: 'changes',
        data: {
          action: `contact.${outcome}`,
          contact: { id: contactId!, name: contact.name, role: contact.role },
        },
        summary: `${verb} ${contact.name} (${contact.role}) on #${job.job_number}`,
        job: jobRefOf(job),
        recordId: contactId,
      },
      { undo: true },
    );
  }
  return { outcome, contact };
};
