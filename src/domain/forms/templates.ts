/**
 * Form templates of a company, kept through the admin API and read by assistants
 * (list_form_templates) and by request_signature. A template's text lives in its versions, each
 * kept as published: a form records the version it was made from, so a new text is always a new
 * version and an old one can be read again. Archived templates make no new forms.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { ApiError, notFound, type FieldError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { localDate, readableDate } from '../../platform/local-time';
import { lockCompany } from '../admin/companies';
import { formatAddress } from '../jobs/job-records';
import {
  templateProblems,
  type FormKind,
  type JobFacts,
  type SignerRole,
  type TemplateField,
} from './template-text';

type Schemas = components['schemas'];
export type FormTemplate = Schemas['FormTemplate'];
type TemplateInput = Schemas['FormTemplateInput'];
type VersionInput = Schemas['FormTemplateVersionInput'];

/** A template with the text of one of its versions, as the tables hold them. */
interface TemplateRow {
  id: string;
  name: string;
  kind: FormKind;
  current_version: number;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  body: string;
  fields: TemplateField[];
  signers: SignerRole[];
  version_created_at: Date;
}

const iso = (at: Date) => new Date(at).toISOString();

function toTemplate(row: TemplateRow): FormTemplate {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    version: row.version,
    current_version: row.current_version,
    body: row.body,
    fields: row.fields,
    signers: row.signers,
    version_created_at: iso(row.version_created_at),
    archived_at: row.archived_at ? iso(row.archived_at) : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Templates of the company joined to one version each: the current one unless `version` says. */
function templatesQuery(db: Knex, companyId: string, version?: number): Knex.QueryBuilder {
  return db('form_templates as t')
    .join('form_template_versions as v', (on) =>
      on.on('v.company_id', 't.company_id').andOn('v.template_id', 't.id'),
    )
    .where('t.company_id', companyId)
    .where('v.version', version ?? db.ref('t.current_version'))
    .select(
      't.id',
      't.name',
      't.kind',
      't.current_version',
      't.archived_at',
      't.created_at',
      't.updated_at',
      'v.version',
      'v.body',
      'v.fields',
      'v.signers',
      'v.created_at as version_created_at',
    );
}

/**
 * A template's current version (or the given one) of the company; 404 for an unknown, archived or
 * another company's id, or a version it does not have (`not_found`, as every unknown id answers).
 */
export async function templateVersion(
  db: Knex,
  companyId: string,
  templateId: string,
  version?: number,
): Promise<{
  template_id: string;
  version: number;
  name: string;
  kind: FormKind;
  body: string;
  fields: TemplateField[];
  signers: SignerRole[];
}> {
  const row = (await templatesQuery(db, companyId, version)
    .where('t.id', templateId)
    .whereNull('t.archived_at')
    .first()) as TemplateRow | undefined;
  if (!row) throw notFound('form template');
  const { id, name, kind, body, fields, signers } = row;
  return { template_id: id, version: row.version, name, kind, body, fields, signers };
}

/** `2026-03-14` → `March 14, 2026`: a calendar date, read the same in every timezone. */
function readableCalendarDate(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return readableDate(new Date(Date.UTC(year!, month! - 1, day!)), 'UTC');
}

interface FactsRow {
  job_number: number;
  address_line1: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  carrier: string | null;
  claim_number: string | null;
  date_of_loss: string | null;
  company_name: string;
  timezone: string;
  customer_name: string | null;
}

/** The facts of a job for its forms (company timezone for today and dates). */
export async function jobFacts(db: Knex, companyId: string, jobId: string): Promise<JobFacts> {
  const job = (await db('jobs as j')
    .join('companies as c', 'c.id', 'j.company_id')
    .where({ 'j.company_id': companyId, 'j.id': jobId })
    .first(
      'j.job_number',
      'j.address_line1',
      'j.city',
      'j.region',
      'j.postal_code',
      'j.carrier',
      'j.claim_number',
      'j.date_of_loss',
      'c.name as company_name',
      'c.timezone',
      db.raw(
        `(select c2.name from job_contacts jc join contacts c2 on c2.id = jc.contact_id
           where jc.job_id = j.id and jc.role = 'customer' order by jc.created_at, jc.id limit 1) as customer_name`,
      ),
    )) as FactsRow | undefined;
  if (!job) throw notFound('job');
  return {
    customer_name: job.customer_name ?? '',
    loss_address: formatAddress(job) ?? '',
    carrier: job.carrier ?? '',
    claim_number: job.claim_number ?? '',
    date_of_loss: job.date_of_loss ? readableCalendarDate(job.date_of_loss) : '',
    company_name: job.company_name,
    today: readableCalendarDate(localDate(new Date(), job.timezone)),
    job_number: String(job.job_number),
  };
}

function invalidTemplate(errors: FieldError[]): ApiError {
  const count = errors.length === 1 ? '1 problem' : `${errors.length} problems`;
  return new ApiError(422, 'invalid_form_template', `The template cannot be saved: ${count}.`, { errors });
}

/** The text's problems, placed in the request's body (`/body/fields/2/signer`). */
function textErrors(text: VersionInput): FieldError[] {
  return templateProblems(text.body, text.fields, text.signers).map((problem) => ({
    path: `/body${problem.pointer}`,
    message: problem.message,
  }));
}

/** Assistants choose a template by its name: two in use with one name could not be told apart. */
async function nameErrors(trx: Knex, companyId: string, name: string): Promise<FieldError[]> {
  const taken = await trx('form_templates')
    .where({ company_id: companyId })
    .whereNull('archived_at')
    .whereRaw('lower(name) = lower(?)', [name])
    .first('id');
  return taken
    ? [{ path: '/body/name', message: `another template in use is named "${name}" (${taken.id})` }]
    : [];
}

async function insertVersion(
  trx: Knex,
  companyId: string,
  templateId: string,
  version: number,
  text: VersionInput,
) {
  await trx('form_template_versions').insert({
    company_id: companyId,
    template_id: templateId,
    version,
    body: text.body,
    fields: JSON.stringify(text.fields),
    signers: JSON.stringify(text.signers),
  });
}

/** The template at its current version or the one asked for, archived or not; 404 for another company's. */
export async function findTemplate(
  db: Knex,
  companyId: string,
  templateId: string,
  version?: number,
): Promise<FormTemplate> {
  const row = (await templatesQuery(db, companyId, version).where('t.id', templateId).first()) as
    | TemplateRow
    | undefined;
  if (!row) throw notFound(version === undefined ? 'form template' : `version ${version} of a form template`);
  return toTemplate(row);
}

/** A new template and its version 1, refused whole (422 naming each problem) when its text does not hold together. */
export async function createTemplate(
  db: Knex,
  companyId: string,
  input: TemplateInput,
): Promise<FormTemplate> {
  return db.transaction(async (trx) => {
    // Creations of one company take turns, so that two cannot both take a name.
    await lockCompany(trx, companyId);
    const name = input.name.trim();
    const errors = [...(await nameErrors(trx, companyId, name)), ...textErrors(input)];
    if (errors.length > 0) throw invalidTemplate(errors);
    const id = newId('ftp');
    await trx('form_templates').insert({
      company_id: companyId,
      id,
      name,
      kind: input.kind,
      current_version: 1,
    });
    await insertVersion(trx, companyId, id, 1, input);
    return findTemplate(trx, companyId, id);
  });
}

/** The company's templates at their current versions, oldest first; archived ones only when asked. */
export async function listTemplates(
  db: Knex,
  companyId: string,
  options: { withArchived: boolean },
): Promise<FormTemplate[]> {
  const rows = (await templatesQuery(db, companyId)
    .modify((q) => (options.withArchived ? q : q.whereNull('t.archived_at')))
    .orderBy([{ column: 't.created_at' }, { column: 't.id' }])) as TemplateRow[];
  return rows.map(toTemplate);
}

/** The template's row, locked until the transaction ends (publishing and archiving take turns), or 404. */
async function lockedTemplate(trx: Knex, companyId: string, templateId: string) {
  const row = await trx('form_templates')
    .where({ company_id: companyId, id: templateId })
    .forUpdate()
    .first('current_version', 'archived_at');
  if (!row) throw notFound('form template');
  return row as { current_version: number; archived_at: Date | null };
}

/** The next version, which becomes the current one; the earlier versions stay as they were. */
export async function publishVersion(
  db: Knex,
  companyId: string,
  templateId: string,
  text: VersionInput,
): Promise<FormTemplate> {
  return db.transaction(async (trx) => {
    const template = await lockedTemplate(trx, companyId, templateId);
    if (template.archived_at)
      throw new ApiError(409, 'invalid_state', 'The template is archived: it takes no new version.');
    const errors = textErrors(text);
    if (errors.length > 0) throw invalidTemplate(errors);
    const version = template.current_version + 1;
    await insertVersion(trx, companyId, templateId, version, text);
    await trx('form_templates')
      .where({ company_id: companyId, id: templateId })
      .update({ current_version: version, updated_at: trx.fn.now() });
    return findTemplate(trx, companyId, templateId);
  });
}

/** Out of use from now on; archiving it again changes nothing. */
export async function archiveTemplate(
  db: Knex,
  companyId: string,
  templateId: string,
): Promise<FormTemplate> {
  return db.transaction(async (trx) => {
    const template = await lockedTemplate(trx, companyId, templateId);
    if (!template.archived_at)
      await trx('form_templates')
        .where({ company_id: companyId, id: templateId })
        .update({ archived_at: trx.fn.now(), updated_at: trx.fn.now() });
    return findTemplate(trx, companyId, templateId);
  });
}
