import { lockedJob, type WriteHandler } from '../tool';
import { jobRefOf } from '../../domain/jobs/job-records';
import { changePerson, jobPerson, personOnJob } from '../../domain/people/contacts';

export const update_contact: WriteHandler<'update_contact'> = async (ctx, { path, body }) => {
  const { db } = ctx;
  const job = lockedJob(ctx);
  // A request that changes nothing answers the person as they are (changePerson writes nothing).
  const { operation_id: _operationId, ...changes } = body;
  const current = await personOnJob(db, job.id, path.contact_id);
  const changed = await changePerson(ctx, current, changes);
  const person = await jobPerson(db, job.id, current.id);
  if (changed.length > 0) {
    ctx.changes.add(
      {
        kind: 'changes',
        data: {
          action: 'contact.updated',
          contact: { id: current.id, name: person.name, role: person.role },
        },
        summary: `Updated ${person.name} on #${job.job_number}: ${changed.join(', ')}`,
        job: jobRefOf(job),
        recordId: current.id,
      },
      { undo: true },
    );
  }
  return person;
};
