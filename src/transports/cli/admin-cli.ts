/**
 * The admin CLI: the admin API (/admin/v1) from a terminal, through the SDK's admin client.
 * `JMS_URL` (default http://127.0.0.1:3000) and `ADMIN_TOKEN` come from the environment. The
 * answer is printed as JSON; a problem prints its detail and each wrong field on stderr and exits
 * with 1. The service itself must run with ADMIN_TOKEN set, or every command answers 404 admin_api_disabled.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createAdminClient, type JobsClient, type Problem } from '../../../sdk/src';
import type { components } from '../../../sdk/src/schema';

const USAGE = `Usage: npm run admin -- <command> [options]

  companies create --name N [--timezone TZ] [--pricing-region IL] [--credits 10]
  companies list [--limit 25] [--cursor C]
  team add --company co_… --name N --role R [--email E] [--does "inspections,drying checks"]
  team set --company co_… --person per_… [--role R] [--email E] [--does "inspections,estimates"]
  team list --company co_… [--limit 25] [--cursor C]
  keys create --company co_… --person per_… --scope read|write
  keys list --company co_…
  keys rotate <key_id>
  keys revoke <key_id>
  assistants list --company co_…                             (assistants approved with OAuth)
  assistants revoke --company co_… <grant_id>
  sign-in link --company co_… --person per_… --scope read|write [--expires-in 1800]
                                                            (one-time: approve an assistant without a key)
  statuses set --company co_… <status> [<status> …]          (board order)
  referral-sources set --company co_… <source> [<source> …]
  credits add --company co_… --add N                          (negative takes credits away)
  chat set --company co_… --webhook-url URL|none --new-note on|off
  webhooks create --company co_… --url https://… [--events "job.created,notes"] [--description D]
                                                            (prints the signing secret, once)
  webhooks list --company co_…
  webhooks set --company co_… <webhook_id> [--url U] [--events E] [--description D]
  webhooks pause|resume|delete --company co_… <webhook_id>
  webhooks rotate --company co_… <webhook_id> [--grace-seconds 86400]
  webhooks replay --company co_… <webhook_id> --event ID | --since-cursor C | --since 2026-11-25T08:00:00Z
  webhooks attempts --company co_… <webhook_id> [--event ID] [--limit 25] [--cursor C]
  profiles create --company co_… --file profile.json         (carrier program profile: name, carriers,
                                                            rules as the API takes them; --file - reads stdin)
  profiles list --company co_…
  profiles show|delete --company co_… <profile_id>
  profiles replace --company co_… <profile_id> --file profile.json
  templates create --company co_… --name N --kind K --file body.md [--fields fields.json]
                   [--signers customer,technician]          (form template, version 1; kinds:
                                                            work_authorization, direction_to_pay,
                                                            certificate_of_completion, disclosure, other)
  templates list --company co_…                               (archived ones too)
  templates show --company co_… <template_id> [--version N]
  templates publish --company co_… <template_id> --file body.md [--fields fields.json] [--signers …]
                                                            (a new version; fields and signers as the
                                                            current version's unless given)
  templates archive --company co_… <template_id>
  estimate-rates set --company co_… --overhead 10 --profit 10 --tax 6.25
  elevation set --company co_… --feet 5280                    (drying logs' air pressure)

Lists print one page; pass its next_cursor as --cursor for the next.
Environment: JMS_URL (default http://127.0.0.1:3000), ADMIN_TOKEN (the one the service was started with).`;

const OPTIONS = {
  name: { type: 'string' },
  timezone: { type: 'string' },
  'pricing-region': { type: 'string' },
  credits: { type: 'string' },
  company: { type: 'string' },
  role: { type: 'string' },
  email: { type: 'string' },
  does: { type: 'string' },
  person: { type: 'string' },
  scope: { type: 'string' },
  add: { type: 'string' },
  feet: { type: 'string' },
  'webhook-url': { type: 'string' },
  'new-note': { type: 'string' },
  overhead: { type: 'string' },
  profit: { type: 'string' },
  tax: { type: 'string' },
  'expires-in': { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
  'grace-seconds': { type: 'string' },
  event: { type: 'string' },
  'since-cursor': { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  file: { type: 'string' },
  kind: { type: 'string' },
  fields: { type: 'string' },
  signers: { type: 'string' },
  version: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];
type Answer = { data?: unknown; error?: unknown; response: Response };

class UsageError extends Error {}
class Unreachable extends Error {}

function causeOf(error: Error): string {
  const cause = error.cause;
  if (cause instanceof Error)
    return 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message;
  return error.message;
}

/** `--does "inspections, drying checks"` → the list; not given → left as it is. */
function listOf(text: string | undefined): string[] | undefined {
  return text === undefined
    ? undefined
    : text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${String(name)} is required`);
  return value;
}

function number(values: Values, name: keyof Values): number {
  const value = Number(required(values, name));
  if (!Number.isFinite(value)) throw new UsageError(`--${String(name)} must be a number`);
  return value;
}

function onOff(value: string): boolean {
  if (value !== 'on' && value !== 'off') throw new UsageError('--new-note must be on or off');
  return value === 'on';
}

/** The text of the file an option names (`-`: stdin). */
async function fileText(values: Values, name: 'file' | 'fields'): Promise<string> {
  const file = required(values, name);
  return readFile(file === '-' ? '/dev/stdin' : file, 'utf8').catch((error: Error) => {
    throw new UsageError(`cannot read --${name} ${file}: ${error.message}`);
  });
}

/** JSON from the file an option names, sent as it is: the service checks it and names each wrong field. */
async function jsonFile<T>(values: Values, name: 'file' | 'fields'): Promise<T> {
  const text = await fileText(values, name);
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new UsageError(`--${name} ${values[name]} is not JSON: ${(error as Error).message}`);
  }
}

type Schemas = components['schemas'];
type TemplateText = Schemas['FormTemplateVersionInput'];
const TEMPLATE_PATH = '/admin/v1/companies/{company_id}/form-templates/{template_id}';

/**
 * A template's text: the Markdown of `--file`, the fields of `--fields` (a JSON array) and the
 * roles of `--signers`; what is not given comes from `before` (for a new template: no fields,
 * the customer signs).
 */
async function templateText(
  values: Values,
  before: Pick<TemplateText, 'fields' | 'signers'>,
): Promise<TemplateText> {
  return {
    body: await fileText(values, 'file'),
    fields:
      values.fields === undefined ? before.fields : await jsonFile<TemplateText['fields']>(values, 'fields'),
    signers: (listOf(values.signers) as TemplateText['signers'] | undefined) ?? before.signers,
  };
}

/** Paging options, sent only when given (the service's defaults apply otherwise). */
function page(values: Values): { limit?: number; cursor?: string } {
  return { limit: values.limit === undefined ? undefined : number(values, 'limit'), cursor: values.cursor };
}

/**
 * `--add -9`: parseArgs takes any word starting with "-" for an option and refuses it as a
 * value, so a negative number after an option that takes one is joined to it (`--add=-9`).
 */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = /^--([\w-]+)$/.exec(argv[i])?.[1];
    const next = argv[i + 1];
    if (
      name &&
      name in OPTIONS &&
      OPTIONS[name as keyof typeof OPTIONS].type === 'string' &&
      next !== undefined &&
      /^-\d/.test(next)
    ) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(argv[i]);
  }
  return out;
}

/** A new version of the template; the fields and signers not given are the current version's. */
async function publishVersion(
  api: JobsClient,
  values: Values,
  params: { path: { company_id: string; template_id: string } },
): Promise<Answer> {
  let before: Pick<TemplateText, 'fields' | 'signers'> = { fields: [], signers: ['customer'] };
  if (values.fields === undefined || values.signers === undefined) {
    const current = await api.GET(TEMPLATE_PATH, { params });
    if (!current.data) return current;
    before = current.data;
  }
  return api.POST(`${TEMPLATE_PATH}/versions`, { params, body: await templateText(values, before) });
}

function run(api: JobsClient, command: string, args: string[], values: Values): Promise<Answer> {
  const company = () => ({ path: { company_id: required(values, 'company') } });
  const keyId = () => {
    if (!args[0]) throw new UsageError('give the key id');
    return { path: { key_id: args[0] } };
  };
  const webhook = () => {
    if (!args[0]) throw new UsageError('give the webhook id');
    return { path: { company_id: required(values, 'company'), webhook_id: args[0] } };
  };
  const webhookPath = '/admin/v1/companies/{company_id}/webhooks/{webhook_id}';
  const profile = () => {
    if (!args[0]) throw new UsageError('give the profile id');
    return { path: { company_id: required(values, 'company'), profile_id: args[0] } };
  };
  const profilePath = '/admin/v1/companies/{company_id}/program-profiles/{profile_id}';
  const template = () => {
    if (!args[0]) throw new UsageError('give the template id');
    return { path: { company_id: required(values, 'company'), template_id: args[0] } };
  };
  switch (command) {
    case 'templates create':
      return templateText(values, { fields: [], signers: ['customer'] }).then((text) =>
        api.POST('/admin/v1/companies/{company_id}/form-templates', {
          params: company(),
          body: {
            name: required(values, 'name'),
            kind: required(values, 'kind') as Schemas['FormKind'],
            ...text,
          },
        }),
      );
    case 'templates list':
      return api.GET('/admin/v1/companies/{company_id}/form-templates', { params: company() });
    case 'templates show':
      return api.GET(TEMPLATE_PATH, {
        params: {
          ...template(),
          query: { version: values.version === undefined ? undefined : number(values, 'version') },
        },
      });
    case 'templates publish':
      return publishVersion(api, values, template());
    case 'templates archive':
      return api.POST(`${TEMPLATE_PATH}/archive`, { params: template() });
    case 'profiles create':
      return jsonFile<Schemas['ProgramProfileInput']>(values, 'file').then((body) =>
        api.POST('/admin/v1/companies/{company_id}/program-profiles', { params: company(), body }),
      );
    case 'profiles list':
      return api.GET('/admin/v1/companies/{company_id}/program-profiles', { params: company() });
    case 'profiles show':
      return api.GET(profilePath, { params: profile() });
    case 'profiles replace':
      return jsonFile<Schemas['ProgramProfileInput']>(values, 'file').then((body) =>
        api.PUT(profilePath, { params: profile(), body }),
      );
    case 'profiles delete':
      return api.DELETE(profilePath, { params: profile() });
    case 'webhooks create':
      return api.POST('/admin/v1/companies/{company_id}/webhooks', {
        params: company(),
        body: {
          url: required(values, 'url'),
          events: listOf(values.events),
          description: values.description,
        },
      });
    case 'webhooks list':
      return api.GET('/admin/v1/companies/{company_id}/webhooks', { params: company() });
    case 'webhooks set':
      return api.PATCH(webhookPath, {
        params: webhook(),
        body: { url: values.url, events: listOf(values.events), description: values.description },
      });
    case 'webhooks pause':
    case 'webhooks resume':
      return api.PATCH(webhookPath, {
        params: webhook(),
        body: { status: command === 'webhooks pause' ? 'paused' : 'active' },
      });
    case 'webhooks delete':
      return api.DELETE(webhookPath, { params: webhook() });
    case 'webhooks rotate':
      return api.POST(`${webhookPath}/rotate-secret`, {
        params: webhook(),
        body: {
          grace_seconds: values['grace-seconds'] === undefined ? undefined : number(values, 'grace-seconds'),
        },
      });
    case 'webhooks replay':
      return api.POST(`${webhookPath}/replay`, {
        params: webhook(),
        body: { event_id: values.event, since_cursor: values['since-cursor'], since: values.since },
      });
    case 'webhooks attempts':
      return api.GET(`${webhookPath}/attempts`, {
        params: { ...webhook(), query: { ...page(values), event_id: values.event } },
      });
    case 'companies create':
      return api.POST('/admin/v1/companies', {
        body: {
          name: required(values, 'name'),
          timezone: values.timezone,
          pricing_region: values['pricing-region'],
          credits: values.credits === undefined ? undefined : number(values, 'credits'),
        },
      });
    case 'companies list':
      return api.GET('/admin/v1/companies', { params: { query: page(values) } });
    case 'team list':
      return api.GET('/admin/v1/companies/{company_id}/team', {
        params: { ...company(), query: page(values) },
      });
    case 'team add':
      return api.POST('/admin/v1/companies/{company_id}/team', {
        params: company(),
        body: {
          name: required(values, 'name'),
          role: required(values, 'role'),
          email: values.email,
          responsibilities: listOf(values.does),
        },
      });
    case 'team set':
      return api.PATCH('/admin/v1/companies/{company_id}/team/{person_id}', {
        params: { path: { company_id: required(values, 'company'), person_id: required(values, 'person') } },
        body: { role: values.role, email: values.email, responsibilities: listOf(values.does) },
      });
    case 'keys create':
      return api.POST('/admin/v1/companies/{company_id}/keys', {
        params: company(),
        body: { person_id: required(values, 'person'), scope: required(values, 'scope') as 'read' | 'write' },
      });
    case 'keys list':
      return api.GET('/admin/v1/companies/{company_id}/keys', { params: company() });
    case 'keys rotate':
      return api.POST('/admin/v1/keys/{key_id}/rotate', { params: keyId() });
    case 'keys revoke':
      return api.DELETE('/admin/v1/keys/{key_id}', { params: keyId() });
    case 'assistants list':
      return api.GET('/admin/v1/companies/{company_id}/assistant-grants', { params: company() });
    case 'assistants revoke':
      if (!args[0]) throw new UsageError('give the grant id');
      return api.DELETE('/admin/v1/companies/{company_id}/assistant-grants/{grant_id}', {
        params: { path: { company_id: required(values, 'company'), grant_id: args[0] } },
      });
    case 'sign-in link':
      return api.POST('/admin/v1/companies/{company_id}/sign-in-links', {
        params: company(),
        body: {
          person_id: required(values, 'person'),
          scope: required(values, 'scope') as 'read' | 'write',
          expires_in: values['expires-in'] === undefined ? undefined : number(values, 'expires-in'),
        },
      });
    case 'statuses set':
      return api.PUT('/admin/v1/companies/{company_id}/statuses', {
        params: company(),
        body: { statuses: args },
      });
    case 'referral-sources set':
      return api.PUT('/admin/v1/companies/{company_id}/referral-sources', {
        params: company(),
        body: { referral_sources: args },
      });
    case 'credits add':
      return api.POST('/admin/v1/companies/{company_id}/credits', {
        params: company(),
        body: { add: number(values, 'add') },
      });
    case 'chat set': {
      const url = required(values, 'webhook-url');
      return api.PUT('/admin/v1/companies/{company_id}/chat', {
        params: company(),
        body: { webhook_url: url === 'none' ? null : url, new_note: onOff(required(values, 'new-note')) },
      });
    }
    case 'estimate-rates set':
      return api.PUT('/admin/v1/companies/{company_id}/estimate-rates', {
        params: company(),
        body: {
          overhead_pct: number(values, 'overhead'),
          profit_pct: number(values, 'profit'),
          tax_pct: number(values, 'tax'),
        },
      });
    case 'elevation set':
      return api.PUT('/admin/v1/companies/{company_id}/elevation', {
        params: company(),
        body: { elevation_ft: number(values, 'feet') },
      });
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(argv),
    options: OPTIONS,
    allowPositionals: true,
  });
  if (values.help || positionals.length < 2) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  const adminToken = process.env.ADMIN_TOKEN;
  if (!adminToken) throw new UsageError("set ADMIN_TOKEN to the service's admin token");
  const baseUrl = process.env.JMS_URL ?? 'http://127.0.0.1:3000';
  const api = createAdminClient({ baseUrl, adminToken });
  const [noun, verb, ...args] = positionals;
  let answer: Answer;
  try {
    answer = await run(api, `${noun} ${verb}`, args, values);
  } catch (error) {
    // fetch fails with a TypeError (refused, unknown host, reset) before any answer arrives.
    if (error instanceof TypeError)
      throw new Unreachable(
        `cannot reach the service at ${baseUrl} (${causeOf(error)}); is it running? (JMS_URL sets where)`,
      );
    throw error;
  }
  if (answer.error) {
    const problem = answer.error as Problem;
    const lines = [`${answer.response.status} ${problem.code}: ${problem.detail ?? problem.title}`];
    for (const field of problem.errors ?? []) lines.push(`  ${field.path}: ${field.message}`);
    console.error(lines.join('\n'));
    return 1;
  }
  console.log(
    answer.data === undefined
      ? JSON.stringify({ status: answer.response.status })
      : JSON.stringify(answer.data, null, 2),
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message =
      error instanceof UsageError
        ? `${error.message}\n\n${USAGE}`
        : error instanceof Error
          ? error.message
          : String(error);
    console.error(message);
    process.exit(1);
  },
);
