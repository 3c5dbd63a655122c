/**
 * request_signature's work: a form of a template's current version on a job, its job fields
 * filled in and frozen now, one signer per role the template needs, and a link for each.
 */
import type { components } from '../../../sdk/src/schema';
import type { WriteCallContext } from '../../platform/handler';
import { ApiError, invalidRequest, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { LinkSigner } from '../../platform/links';
import { jobRefOf, type JobRow } from '../jobs/job-records';
import { personOnJob } from '../people/contacts';
import { ROLE_ORDER, type FormRow } from './form-records';
import { linkIdOf, signLinkQuery } from './sign-links';
import { documentSha256, fillJobFields, type SignerRole } from './template-text';
import { jobFacts, templateVersion } from './templates';

type SignatureRequest = components['schemas']['SignatureRequest'];
type RequestBody = {
  template_id: string;
  contact_id?: string;
  technician_id?: string;
  office_id?: string;
  expires_in?: number;
};

/** A week: long enough for a customer to sign at home, short enough that a forgotten link dies. */
export const DEFAULT_SIGN_SECONDS = 7 * 24 * 3600;

interface Signer {
  role: SignerRole;
  contact_id: string | null;
  person_id: string | null;
  name: string;
  email: string | null;
  phone: string | null;
}

export async function requestForm(
  ctx: WriteCallContext,
  job: JobRow,
  body: RequestBody,
): Promise<SignatureRequest> {
  const { db, caller, config } = ctx;
  const template = await templateVersion(db, caller.companyId, body.template_id);
  const roles = ROLE_ORDER.filter((role) => template.signers.includes(role));
  refuseUnneededSigners(roles, body);
  const signers: Signer[] = [];
  for (const role of roles) signers.push(await signerOf(ctx, job, role, body));

  const filled = fillJobFields(template.body, await jobFacts(db, caller.companyId, job.id));
  const formId = newId('frm');
  const expires = LinkSigner.expiryIn(body.expires_in ?? DEFAULT_SIGN_SECONDS, false);
  const links = await Promise.all(
    signers.map(async (signer) => {
      const query = await signLinkQuery(ctx.links, {
        companyId: caller.companyId,
        keyId: caller.keyId,
        jobId: job.id,
        formId,
        role: signer.role,
        expires,
      });
      return {
        url: `${config.publicUrl}/sign/${formId}?${query}`,
        linkId: linkIdOf(new URLSearchParams(query).get('s') ?? ''),
      };
    }),
  );
  const form = await ctx.rows.insertTogether<FormRow>([
    {
      table: 'job_forms',
      row: {
        id: formId,
        job_id: job.id,
        template_id: template.template_id,
        template_version: template.version,
        title: template.name,
        kind: template.kind,
        body: filled,
        document_sha256: documentSha256(filled),
        fields: JSON.stringify(template.fields),
        state: 'sent',
        expires_at: new Date(expires * 1000),
        requested_by: caller.personId,
        key_id: caller.keyId,
      },
    },
    ...signers.map((signer, i) => ({
      table: 'job_form_signers' as const,
      row: { id: newId('sgn'), form_id: formId, ...signer, state: 'sent', link_id: links[i].linkId },
    })),
  ]);
  ctx.changes.add(
    {
      kind: 'forms',
      data: {
        action: 'form.requested',
        form_id: formId,
        template_id: template.template_id,
        template_version: template.version,
        title: template.name,
        kind: template.kind,
        signers: signers.map(({ role, name }) => ({ role, name })),
        expires_at: new Date(expires * 1000).toISOString(),
      },
      summary: `${template.name} sent for signature on #${job.job_number} to ${signers.map((s) => s.name).join(', ')} by ${caller.personName}`,
      job: jobRefOf(job),
      recordId: formId,
    },
    { undo: true },
  );
  return {
    form_id: formId,
    job_id: job.id,
    job_number: job.job_number,
    template_id: template.template_id,
    template_version: template.version,
    title: template.name,
    kind: template.kind,
    state: 'sent',
    document_sha256: form.document_sha256,
    expires_at: new Date(expires * 1000).toISOString(),
    created_at: new Date(form.created_at).toISOString(),
    signers: signers.map((signer, i) => ({ ...signer, state: 'sent' as const, url: links[i].url })),
  };
}

/** A teammate named for a role the template does not have would sign nothing: refused rather than ignored. */
function refuseUnneededSigners(roles: SignerRole[], body: RequestBody): void {
  const named: [keyof RequestBody, SignerRole][] = [
    ['technician_id', 'technician'],
    ['office_id', 'office'],
  ];
  const errors = named
    .filter(([field, role]) => body[field] !== undefined && !roles.includes(role))
    .map(([field, role]) => ({
      path: `/body/${field}`,
      message: `the template has no ${role} signer (it needs: ${roles.join(', ')})`,
    }));
  if (errors.length > 0) throw invalidRequest(errors);
}

async function signerOf(
  ctx: WriteCallContext,
  job: JobRow,
  role: SignerRole,
  body: RequestBody,
): Promise<Signer> {
  const { db, caller } = ctx;
  if (role === 'customer') {
    const contactId = body.contact_id ?? (await customerOf(ctx, job));
    const contact = await personOnJob(db, job.id, contactId);
    return {
      role,
      contact_id: contact.id,
      person_id: null,
      name: contact.name,
      email: contact.email,
      phone: contact.phone,
    };
  }
  const personId = (role === 'technician' ? body.technician_id : body.office_id) ?? caller.personId;
  const person = await db('people')
    .where({ company_id: caller.companyId, id: personId })
    .first('id', 'name', 'email');
  if (!person) throw notFound('teammate');
  return {
    role,
    contact_id: null,
    person_id: person.id,
    name: person.name,
    email: person.email ?? null,
    phone: null,
  };
}

/** The job's customer (the first one added), whom a form is for unless it names another contact. */
async function customerOf(ctx: WriteCallContext, job: JobRow): Promise<string> {
  const row = await ctx
    .db('job_contacts')
    .where({ company_id: ctx.caller.companyId, job_id: job.id, role: 'customer' })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .first('contact_id');
  if (!row)
    throw new ApiError(
      422,
      'no_customer',
      `Job #${job.job_number} has no customer to sign: add one (add_contact), or name a contact of the job with contact_id.`,
    );
  return row.contact_id;
}
