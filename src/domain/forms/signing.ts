/**
 * What a signer does through their link: open the form (recorded the first time, with the time,
 * address and browser), read it, sign it or decline it. Each write runs through the pipeline's
 * link write, holding the job's lock and then the form's row lock, so that two signings at once
 * sign once: the second finds the signer signed and is refused. When the last signer signs, the
 * signed PDF is made (./signed-pdf.ts), and its SHA-256 kept on the form, in the same transaction
 * as the signature.
 */
import { ApiError } from '../../platform/errors';
import type { WriteCallContext } from '../../platform/handler';
import type { Deps } from '../services';
import type { WriteSubject } from '../write-subject';
import { storageKey } from '../media/storage-keys';
import { keepSignedPdf } from './signed-pdf';
import {
  CONSENT_VERSION,
  consentText,
  fieldsOf,
  findForm,
  formStateOf,
  signersOf,
  type FormRow,
  type FormState,
  type SignerRow,
  type SignerState,
} from './form-records';
import { checkSignInput } from './sign-input';
import { holderOfSignLink, linkQueryWith, type SignLinkHolder } from './sign-links';
import { documentHtml, type FormKind, type SignerRole, type TemplateField } from './template-text';

/** Where a request came from, as the audit page prints it. */
export interface Visit {
  ip: string;
  userAgent: string;
}

/** A signer's link, checked, with their form and their part of it as they are now. */
export interface SignerAccess {
  holder: SignLinkHolder;
  form: FormRow;
  signer: SignerRow;
  /** The link's query, for the URLs the page posts to. */
  query: string;
}

/** The signing page's data (src/transports/pages/signing-page.ts's SigningView). */
export interface SigningViewData {
  form_id: string;
  company_name: string;
  job_number: number;
  title: string;
  kind: FormKind;
  template_version: number;
  signer: { role: SignerRole; name: string; email: string | null; phone: string | null };
  document_html: string;
  document_sha256: string;
  fields: { key: string; label: string; type: TemplateField['type']; required: boolean }[];
  consent: { version: string; text: string };
  state: SignerState;
  form_state: FormState;
  expires_at: string;
  sign_url: string;
  decline_url: string;
  copy_url: string;
}

export interface SignAnswer {
  state: 'signed';
  signed_at: string;
  form_state: FormState;
  copy_url: string;
}

const formClosed = (detail: string) => new ApiError(410, 'form_closed', detail);

/**
 * Checks the link (403, 410) and finds its form and signer. A form taken back by undo is gone:
 * its still valid link says it was withdrawn.
 */
export async function signerOfLink(
  deps: Deps,
  formId: string,
  query: Record<string, unknown>,
): Promise<SignerAccess> {
  const holder = await holderOfSignLink(deps.db, deps.media.links, formId, query);
  const { companyId } = holder.caller;
  const form = (await deps.db('job_forms').where({ company_id: companyId, id: formId }).first()) as
    | FormRow
    | undefined;
  if (!form)
    throw formClosed(
      `${holder.caller.companyName} withdrew this form before it was signed. Ask them for a new link.`,
    );
  const signer = (await deps
    .db('job_form_signers')
    .where({ company_id: companyId, form_id: formId, role: holder.link.role })
    .first()) as SignerRow | undefined;
  if (!signer || form.job_id !== holder.link.jobId)
    throw new ApiError(403, 'link_invalid', 'This link is not valid for this form. Ask for a new link.');
  return { holder, form, signer, query: linkQueryWith(holder.link, String(query.s)) };
}

/** Refuses (410 `form_closed`) a link whose signer has signed or declined, or whose form is declined or voided. */
export function assertOpen(form: FormRow, signer: SignerRow, companyName: string): void {
  if (signer.state === 'signed')
    throw formClosed(`You signed this form on ${stamp(signer.signed_at)}; it cannot be signed again.`);
  if (signer.state === 'declined' || form.state === 'declined')
    throw formClosed(
      `This form was declined${form.declined_at ? ` on ${stamp(form.declined_at)}` : ''}; it can no longer be signed. Ask ${companyName} for a new one.`,
    );
  if (form.state === 'voided')
    throw formClosed(
      `${companyName} voided this form${form.void_reason ? ` (${form.void_reason})` : ''}; it can no longer be signed.`,
    );
}

const stamp = (at: Date | null) =>
  at ? `${new Date(at).toISOString().replace('T', ' ').slice(0, 16)} UTC` : 'an earlier visit';

const urls = (access: SignerAccess) => {
  const base = `/sign/${access.form.id}`;
  return {
    sign_url: `${base}/sign?${access.query}`,
    decline_url: `${base}/decline?${access.query}`,
    copy_url: `${base}/copy?${access.query}`,
  };
};

export async function signingView(deps: Deps, access: SignerAccess): Promise<SigningViewData> {
  const { form, signer, holder } = access;
  const job = await deps
    .db('jobs')
    .where({ company_id: form.company_id, id: form.job_id })
    .first('job_number');
  return {
    form_id: form.id,
    company_name: holder.caller.companyName,
    job_number: Number(job.job_number),
    title: form.title,
    kind: form.kind,
    template_version: form.template_version,
    signer: { role: signer.role, name: signer.name, email: signer.email, phone: signer.phone },
    document_html: documentHtml(form.body),
    document_sha256: form.document_sha256,
    fields: fieldsOf(form, signer.role).map(({ key, label, type, required }) => ({
      key,
      label,
      type,
      required,
    })),
    consent: { version: CONSENT_VERSION, text: consentText(holder.caller.companyName, form.title) },
    state: signer.state,
    form_state: formStateOf(form),
    expires_at: new Date(form.expires_at).toISOString(),
    ...urls(access),
  };
}

/**
 * The signer's first visit: when, from where, with what browser, and the feed entry
 * `form.opened`. Later visits change nothing. Opening changes no row's version: undo may still
 * withdraw a form that was only opened.
 */
export async function recordOpened(deps: Deps, access: SignerAccess, visit: Visit): Promise<SignerAccess> {
  if (access.signer.opened_at) return access;
  const { form, signer, holder } = access;
  const openedAt = new Date();
  await deps.pipeline.linkWrite(holder.caller, form.job_id, async (ctx) => {
    const first = await ctx
      .db('job_form_signers')
      .where({ company_id: form.company_id, id: signer.id })
      .whereNull('opened_at')
      .update({
        opened_at: openedAt,
        opened_ip: visit.ip,
        opened_user_agent: visit.userAgent,
        state: ctx.db.raw("case when state = 'sent' then 'opened' else state end"),
      })
      .returning('id');
    if (first.length === 0) return;
    await ctx
      .db('job_forms')
      .where({ company_id: form.company_id, id: form.id, state: 'sent' })
      .update({ state: 'opened' });
    ctx.changes.add({
      kind: 'forms',
      data: {
        action: 'form.opened',
        form_id: form.id,
        signer_role: signer.role,
        signer_name: signer.name,
        via: 'signing_page',
      },
      summary: `${form.title} on #${jobNumberOf(ctx)} opened by ${signer.name} (${signer.role})`,
      job: { id: form.job_id, job_number: jobNumberOf(ctx) },
      recordId: form.id,
    });
  });
  const opened = signer.state === 'sent' ? ('opened' as const) : signer.state;
  return {
    ...access,
    form: { ...form, state: form.state === 'sent' ? 'opened' : form.state },
    signer: {
      ...signer,
      state: opened,
      opened_at: openedAt,
      opened_ip: visit.ip,
      opened_user_agent: visit.userAgent,
    },
  };
}

function jobNumberOf(ctx: WriteCallContext<WriteSubject>): number {
  if (!ctx.subject.job) throw new Error('a link write locks its job');
  return ctx.subject.job.job_number;
}

/** Signs the signer's part; when it is the last, makes and keeps the signed PDF. */
export async function signForm(
  deps: Deps,
  access: SignerAccess,
  body: unknown,
  visit: Visit,
): Promise<SignAnswer> {
  const { holder } = access;
  const companyName = holder.caller.companyName;
  assertOpen(access.form, access.signer, companyName);
  const input = await checkSignInput(body, fieldsOf(access.form, access.signer.role));
  return deps.pipeline.linkWrite(holder.caller, access.form.job_id, async (ctx) => {
    const form = await findForm(ctx.db, access.form.company_id, access.form.id, true);
    const signers = await signersOf(ctx.db, form.company_id, form.id);
    const signer = signers.find((s) => s.role === access.signer.role)!;
    assertOpen(form, signer, companyName);
    if (input.documentSha256 !== form.document_sha256)
      throw new ApiError(
        409,
        'document_changed',
        'The document you were shown is not the one kept for this form (its SHA-256 differs): reload the page and read it again before signing.',
      );
    const signedAt = new Date();
    const signed: SignerRow = {
      ...signer,
      state: 'signed',
      signed_at: signedAt,
      signed_ip: visit.ip,
      signed_user_agent: visit.userAgent,
      typed_name: input.typedName,
      signature: input.signature,
      field_values: input.values,
      consent_version: CONSENT_VERSION,
      consent_text: consentText(companyName, form.title),
      version: signer.version + 1,
    };
    await ctx
      .db('job_form_signers')
      .where({ company_id: form.company_id, id: signer.id })
      .update({
        state: 'signed',
        signed_at: signedAt,
        signed_ip: signed.signed_ip,
        signed_user_agent: signed.signed_user_agent,
        typed_name: signed.typed_name,
        signature: JSON.stringify(signed.signature),
        field_values: JSON.stringify(signed.field_values),
        consent_version: signed.consent_version,
        consent_text: signed.consent_text,
        version: signed.version,
        updated_at: ctx.db.fn.now(),
      });
    const after = signers.map((s) => (s.id === signer.id ? signed : s));
    const complete = after.every((s) => s.state === 'signed');
    const pdf = complete
      ? await keepSignedPdf(deps, ctx.db, form, after, { companyName, jobNumber: jobNumberOf(ctx) })
      : null;
    const formState = complete ? 'signed' : 'opened';
    // Every signature moves the form's version: undo no longer withdraws a form someone signed.
    await ctx
      .db('job_forms')
      .where({ company_id: form.company_id, id: form.id })
      .update({
        state: formState,
        signed_at: complete ? signedAt : null,
        signed_pdf_sha256: pdf?.sha256 ?? null,
        signed_document_id: pdf?.documentId ?? null,
        version: form.version + 1,
        updated_at: ctx.db.fn.now(),
      });
    const jobNumber = jobNumberOf(ctx);
    ctx.changes.add({
      kind: 'forms',
      data: {
        action: 'form.signed',
        form_id: form.id,
        signer_role: signer.role,
        signer_name: signer.name,
        form_state: formState,
        document_id: pdf?.documentId ?? null,
        signed_pdf_sha256: pdf?.sha256 ?? null,
        via: 'signing_page',
      },
      summary: complete
        ? `${form.title} on #${jobNumber} signed by ${signer.name} (${signer.role}); signed by everyone`
        : `${form.title} on #${jobNumber} signed by ${signer.name} (${signer.role})`,
      job: { id: form.job_id, job_number: jobNumber },
      recordId: form.id,
    });
    return {
      state: 'signed',
      signed_at: signedAt.toISOString(),
      form_state: formState,
      copy_url: urls(access).copy_url,
    };
  });
}

/** Declines the form with the signer's reason: it can no longer be signed by anyone. */
export async function declineForm(
  deps: Deps,
  access: SignerAccess,
  body: unknown,
): Promise<{ state: 'declined' }> {
  const { holder } = access;
  const companyName = holder.caller.companyName;
  assertOpen(access.form, access.signer, companyName);
  const given = typeof body === 'object' && body !== null ? (body as { reason?: unknown }).reason : undefined;
  const reason = typeof given === 'string' ? given.trim() : '';
  if (reason.length < 1 || reason.length > 1000 || reason.includes('\u0000'))
    throw new ApiError(422, 'fields_invalid', 'Say why you decline (1 to 1,000 characters).', {
      errors: [{ path: '/body/reason', message: 'must be 1 to 1000 characters' }],
    });
  return deps.pipeline.linkWrite(holder.caller, access.form.job_id, async (ctx) => {
    const form = await findForm(ctx.db, access.form.company_id, access.form.id, true);
    const signer = (await signersOf(ctx.db, form.company_id, form.id)).find(
      (s) => s.role === access.signer.role,
    )!;
    assertOpen(form, signer, companyName);
    const now = ctx.db.fn.now();
    await ctx
      .db('job_form_signers')
      .where({ company_id: form.company_id, id: signer.id })
      .update({
        state: 'declined',
        declined_at: now,
        decline_reason: reason,
        version: signer.version + 1,
        updated_at: now,
      });
    await ctx
      .db('job_forms')
      .where({ company_id: form.company_id, id: form.id })
      .update({ state: 'declined', declined_at: now, version: form.version + 1, updated_at: now });
    const jobNumber = jobNumberOf(ctx);
    ctx.changes.add({
      kind: 'forms',
      data: {
        action: 'form.declined',
        form_id: form.id,
        signer_role: signer.role,
        signer_name: signer.name,
        reason,
        via: 'signing_page',
      },
      summary: `${form.title} on #${jobNumber} declined by ${signer.name} (${signer.role}): ${reason.slice(0, 120)}`,
      job: { id: form.job_id, job_number: jobNumber },
      recordId: form.id,
    });
    return { state: 'declined' as const };
  });
}

/** Where the signed PDF is kept; 409 while the form is not signed by everyone. */
export function signedCopyKey(access: SignerAccess): string {
  const { form } = access;
  if (!form.signed_pdf_sha256)
    throw new ApiError(
      409,
      'invalid_state',
      'The signed copy is made once every signer has signed; this form is not signed by everyone yet.',
    );
  return storageKey(form.company_id, form.signed_pdf_sha256, 'original');
}
