/**
 * Carrier program profiles: the rules a carrier's or administrator's program asks of a
 * contractor, kept per company through the admin API, read by assistants, and checked by
 * check_claim_readiness (drying/program-rules.ts). Each rule is checked against its kind's
 * schema in the spec, so that a wrong one is a 422 naming the field, not a bad request.
 */
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import { ApiError, notFound, type FieldError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { schemaErrors } from '../../platform/validation';
import { requireCompany } from '../admin/companies';

type Schemas = components['schemas'];
export type ProgramProfile = Schemas['ProgramProfile'];
export type ProgramRule = Schemas['ProgramRule'];
export type ProgramRuleKind = Schemas['ProgramRuleKind'];
type ProfileInput = Schemas['ProgramProfileInput'];
export type JobProgramProfile = Schemas['JobProgramProfile'];

/** The schema of each kind, as the spec's `ProgramRule` discriminator maps them. */
const RULE_SCHEMAS: Record<ProgramRuleKind, string> = {
  photos_per_room: 'PhotosPerRoomRule',
  equipment_photographed: 'EquipmentPhotographedRule',
  before_and_after_photos: 'BeforeAndAfterPhotosRule',
  daily_atmospherics: 'DailyAtmosphericsRule',
  moisture_point_per_material: 'MoisturePointPerMaterialRule',
  note_for_line_codes: 'NoteForLineCodesRule',
  first_reading_within_hours: 'FirstReadingWithinHoursRule',
  signed_work_authorization: 'SignedWorkAuthorizationRule',
  certificate_of_completion: 'CertificateOfCompletionRule',
};
const KINDS = Object.keys(RULE_SCHEMAS) as ProgramRuleKind[];
const DEFAULT_SEVERITY: Schemas['ProgramRuleSeverity'] = 'medium';

interface ProfileRow {
  id: string;
  name: string;
  carriers: string[];
  rules: ProgramRule[];
  created_at: Date;
  updated_at: Date;
}

const carrierKey = (carrier: string) => carrier.trim().toLowerCase();

function invalidProfile(errors: FieldError[]): ApiError {
  const count = errors.length === 1 ? '1 field is' : `${errors.length} fields are`;
  return new ApiError(422, 'invalid_program_profile', `The profile cannot be saved: ${count} wrong.`, {
    errors,
  });
}

/** Each rule by its kind's schema; every wrong field is named, under `/body/rules/<i>`. */
function ruleErrors(rules: ProfileInput['rules']): FieldError[] {
  return rules.flatMap((rule, i) => {
    const at = `/body/rules/${i}`;
    const kind = (rule as { kind?: unknown }).kind;
    if (typeof kind !== 'string' || !KINDS.includes(kind as ProgramRuleKind))
      return [{ path: `${at}/kind`, message: `must be one of: ${KINDS.join(', ')}` }];
    return schemaErrors(RULE_SCHEMAS[kind as ProgramRuleKind], rule, at);
  });
}

/** A carrier already in another profile of the company would leave a job two profiles. */
async function carrierErrors(
  db: Knex,
  companyId: string,
  carriers: string[],
  exceptId: string | null,
): Promise<FieldError[]> {
  const others = (await db('program_profiles')
    .where({ company_id: companyId })
    .modify((q) => (exceptId ? q.whereNot({ id: exceptId }) : q))
    .select('name', 'carriers')) as Pick<ProfileRow, 'name' | 'carriers'>[];
  return carriers.flatMap((carrier, i) => {
    const taken = others.find((other) => other.carriers.some((c) => carrierKey(c) === carrierKey(carrier)));
    const repeated = carriers.findIndex((c) => carrierKey(c) === carrierKey(carrier)) < i;
    if (taken) return [{ path: `/body/carriers/${i}`, message: `is already a carrier of "${taken.name}"` }];
    return repeated ? [{ path: `/body/carriers/${i}`, message: 'is listed twice' }] : [];
  });
}

/** The input checked (422 naming each wrong field) and ready to store, each rule with its severity. */
async function checkedInput(
  db: Knex,
  companyId: string,
  input: ProfileInput,
  exceptId: string | null,
): Promise<Pick<ProfileRow, 'name' | 'carriers' | 'rules'>> {
  const carriers = input.carriers.map((carrier) => carrier.trim());
  const errors = [...ruleErrors(input.rules), ...(await carrierErrors(db, companyId, carriers, exceptId))];
  if (errors.length > 0) throw invalidProfile(errors);
  const rules = (input.rules as unknown as ProgramRule[]).map((rule) => ({
    severity: DEFAULT_SEVERITY,
    ...rule,
  }));
  return { name: input.name.trim(), carriers, rules };
}

function toProfile(row: ProfileRow): ProgramProfile {
  return {
    id: row.id,
    name: row.name,
    carriers: row.carriers,
    rules: row.rules,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** Writes of one company's profiles take turns, so that two cannot both claim a carrier. */
async function lockCompany(trx: Knex.Transaction, companyId: string): Promise<void> {
  await trx('companies').where({ id: companyId }).forUpdate().first('id');
}

export async function createProfile(
  db: Knex,
  companyId: string,
  input: ProfileInput,
): Promise<ProgramProfile> {
  await requireCompany(db, companyId);
  return db.transaction(async (trx) => {
    await lockCompany(trx, companyId);
    const checked = await checkedInput(trx, companyId, input, null);
    const [row] = await trx('program_profiles')
      .insert({
        id: newId('prg'),
        company_id: companyId,
        name: checked.name,
        carriers: JSON.stringify(checked.carriers),
        rules: JSON.stringify(checked.rules),
      })
      .returning('*');
    return toProfile(row as ProfileRow);
  });
}

export async function listProfiles(db: Knex, companyId: string): Promise<ProgramProfile[]> {
  const rows = (await db('program_profiles')
    .where({ company_id: companyId })
    .orderBy(['created_at', 'id'])
    .select('*')) as ProfileRow[];
  return rows.map(toProfile);
}

/** The company's profile, or 404 (another company's profile is not found either). */
export async function findProfile(db: Knex, companyId: string, profileId: string): Promise<ProgramProfile> {
  const row = (await db('program_profiles').where({ id: profileId, company_id: companyId }).first('*')) as
    | ProfileRow
    | undefined;
  if (!row) throw notFound('program profile');
  return toProfile(row);
}

export async function replaceProfile(
  db: Knex,
  companyId: string,
  profileId: string,
  input: ProfileInput,
): Promise<ProgramProfile> {
  return db.transaction(async (trx) => {
    await lockCompany(trx, companyId);
    await findProfile(trx, companyId, profileId);
    const checked = await checkedInput(trx, companyId, input, profileId);
    const [row] = await trx('program_profiles')
      .where({ id: profileId, company_id: companyId })
      .update({
        name: checked.name,
        carriers: JSON.stringify(checked.carriers),
        rules: JSON.stringify(checked.rules),
        updated_at: trx.fn.now(),
      })
      .returning('*');
    return toProfile(row as ProfileRow);
  });
}

export async function deleteProfile(db: Knex, companyId: string, profileId: string): Promise<void> {
  await findProfile(db, companyId, profileId);
  await db('program_profiles').where({ id: profileId, company_id: companyId }).delete();
}

/**
 * SQL of the profile that applies to the job named `job` in the query (`j` unless told), as
 * `json_build_object` of id, name, applies_because and (with `withRules`) rules: the one the job
 * chose, else the one whose carriers include the job's carrier (a carrier is in one profile of a
 * company at most).
 */
export function appliedProfileSql(withRules: boolean, job = 'j'): string {
  return `(select json_build_object('id', pp.id, 'name', pp.name,
            'applies_because', case when pp.id = ${job}.program_profile_id then 'chosen_on_job' else 'carrier' end
            ${withRules ? ", 'rules', pp.rules" : ''})
          from program_profiles pp
         where pp.company_id = ${job}.company_id
           and (pp.id = ${job}.program_profile_id
                or (${job}.program_profile_id is null and exists (
                      select 1 from jsonb_array_elements_text(pp.carriers) c
                       where lower(btrim(c)) = lower(btrim(${job}.carrier)))))
         limit 1)`;
}

export type AppliedProfile = NonNullable<JobProgramProfile> & { rules: ProgramRule[] };

/** The profile the job is checked against, with its rules; null when none applies. */
export async function appliedProfile(db: Knex, jobId: string): Promise<AppliedProfile | null> {
  const row = (await db('jobs as j')
    .where('j.id', jobId)
    .first(db.raw(`${appliedProfileSql(true)} as profile`))) as
    | { profile: AppliedProfile | null }
    | undefined;
  return row?.profile ?? null;
}

/** The id of a profile of the caller's company for a job to choose; 404 for another company's or an unknown one. */
export async function requireProfileId(db: Knex, companyId: string, profileId: string): Promise<string> {
  const row = await db('program_profiles').where({ id: profileId, company_id: companyId }).first('id');
  if (!row) throw notFound('program profile');
  return profileId;
}
