/**
 * The text of a form template: its placeholders, their checks, the job's facts written into it,
 * and the safe HTML a signer reads. Pure functions of strings, no database: the form's document
 * is frozen from them when a signature is asked for (forms/templates.ts gives the inputs).
 *
 * A body is Markdown with two kinds of placeholder: `{{job.<fact>}}`, filled from the job when
 * the form is made, and `{{fill.<key>}}`, a field a signer fills in, declared in `fields`.
 */
import { createHash } from 'node:crypto';
import MarkdownIt from 'markdown-it';

export type SignerRole = 'customer' | 'technician' | 'office';
export type FormKind =
  | 'work_authorization'
  | 'direction_to_pay'
  | 'certificate_of_completion'
  | 'disclosure'
  | 'other';
export interface TemplateField {
  key: string;
  label: string;
  type: 'text' | 'date' | 'initials' | 'checkbox';
  required: boolean;
  signer: SignerRole;
}
export interface JobFacts {
  customer_name: string;
  loss_address: string;
  carrier: string;
  claim_number: string;
  date_of_loss: string;
  company_name: string;
  today: string;
  job_number: string;
}

const SIGNER_ROLES: readonly SignerRole[] = ['customer', 'technician', 'office'];
const JOB_FACTS: readonly (keyof JobFacts)[] = [
  'customer_name',
  'loss_address',
  'carrier',
  'claim_number',
  'date_of_loss',
  'company_name',
  'today',
  'job_number',
];
/** A field's key: what `{{fill.<key>}}` names and what the signer's answer is kept under. */
const FIELD_KEY = /^[a-z][a-z0-9_]{0,39}$/;

/**
 * `{{ name }}` anywhere in the text; the name is checked apart, so that a misspelt one is named
 * rather than left in the document as text. An escaped brace (`\{`, as facts are written) never
 * opens one.
 */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const NAMED = /^(job|fill)\.([a-z][a-z0-9_]*)$/;

interface Placeholder {
  name: string;
  source: 'job' | 'fill' | null;
  key: string;
}

function placeholdersOf(body: string): Placeholder[] {
  return [...body.matchAll(PLACEHOLDER)].map(([, name]) => {
    const named = NAMED.exec(name!);
    return named
      ? { name: name!, source: named[1] as 'job' | 'fill', key: named[2]! }
      : { name: name!, source: null, key: '' };
  });
}

type Problem = { pointer: string; message: string };

function bodyProblems(body: string, declared: Set<string>): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const placeholder of placeholdersOf(body)) {
    const written = `{{${placeholder.name}}}`;
    if (seen.has(placeholder.name)) {
      // A field has one place: the signer answers it once, where they read it.
      if (placeholder.source === 'fill' && declared.has(placeholder.key) && !repeated.has(placeholder.key))
        problems.push({ pointer: '/body', message: `${written} is placed more than once` });
      repeated.add(placeholder.key);
      continue;
    }
    seen.add(placeholder.name);
    if (placeholder.source === 'job' && !JOB_FACTS.includes(placeholder.key as keyof JobFacts))
      problems.push({
        pointer: '/body',
        message: `unknown placeholder ${written}: the job's are ${JOB_FACTS.map((f) => `{{job.${f}}}`).join(', ')}`,
      });
    else if (placeholder.source === 'fill' && !declared.has(placeholder.key))
      problems.push({
        pointer: '/body',
        message: `${written} is not declared in fields (add a field with key "${placeholder.key}")`,
      });
    else if (placeholder.source === null)
      problems.push({
        pointer: '/body',
        message: `unknown placeholder ${written}: write {{job.<fact>}} or {{fill.<field key>}}`,
      });
  }
  // A "{{" left once every placeholder is taken out opens nothing: a typo such as {{job.carrier}.
  if (/(?<!\\)\{\{/.test(body.replace(PLACEHOLDER, '')))
    problems.push({ pointer: '/body', message: '"{{" without its closing "}}"' });
  return problems;
}

/** A field written only in code, or in a link's address, has no place on the page for its answer. */
function placementProblems(body: string, used: Set<string>): Problem[] {
  const html = documentHtml(body);
  return [...used]
    .filter((key) => !html.includes(`data-fill="${key}"`))
    .map((key) => ({
      pointer: '/body',
      message: `{{fill.${key}}} is inside code or a link's address, where the signer's answer cannot show`,
    }));
}

function fieldProblems(fields: TemplateField[], signers: SignerRole[], used: Set<string>): Problem[] {
  return fields.flatMap((field, i): Problem[] => {
    if (!FIELD_KEY.test(field.key))
      return [
        {
          pointer: `/fields/${i}/key`,
          message: 'must be 1 to 40 lower-case letters, digits or _, starting with a letter',
        },
      ];
    if (fields.findIndex((other) => other.key === field.key) < i)
      return [{ pointer: `/fields/${i}/key`, message: `"${field.key}" is declared twice` }];
    const problems: Problem[] = [];
    if (!used.has(field.key))
      problems.push({
        pointer: `/fields/${i}/key`,
        message: `is not used in the body: write {{fill.${field.key}}} where the signer's answer goes`,
      });
    if (!signers.includes(field.signer))
      problems.push({
        pointer: `/fields/${i}/signer`,
        message: `"${field.signer}" is not among the template's signers (${signers.join(', ')})`,
      });
    return problems;
  });
}

function signerProblems(signers: SignerRole[]): Problem[] {
  const problems: Problem[] = signers.flatMap((role, i) => {
    if (!SIGNER_ROLES.includes(role))
      return [{ pointer: `/signers/${i}`, message: `must be one of ${SIGNER_ROLES.join(', ')}` }];
    return signers.indexOf(role) < i
      ? [{ pointer: `/signers/${i}`, message: `"${role}" is listed twice` }]
      : [];
  });
  if (!signers.includes('customer'))
    problems.push({
      pointer: '/signers',
      message: 'must include customer: every form is signed by a customer',
    });
  return problems;
}

/** Problems of a template (unknown placeholders, fill keys not declared, declared and unused, a field's signer not among signers): [] when fine. */
export function templateProblems(
  body: string,
  fields: TemplateField[],
  signers: SignerRole[],
): { pointer: string; message: string }[] {
  const declared = new Set(fields.map((field) => field.key));
  const used = new Set(
    placeholdersOf(body)
      .filter((placeholder) => placeholder.source === 'fill')
      .map((placeholder) => placeholder.key),
  );
  return [
    ...bodyProblems(body, declared),
    ...placementProblems(body, used),
    ...fieldProblems(fields, signers, used),
    ...signerProblems(signers),
  ];
}

/**
 * A fact as Markdown that reads as the same text: one line, with every character that could
 * start Markdown (emphasis, links, headings, lists, HTML, a placeholder's braces) escaped. A
 * customer named `{{fill.x}}` or `[me](https://…)` stays a name.
 */
function asMarkdownText(fact: string): string {
  return fact
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_{}[\]()<>#+\-.!|~&=^]/g, '\\$&');
}

/** The body with every {{job.*}} replaced by the job's facts (as text, Markdown-escaped); {{fill.*}} kept. */
export function fillJobFields(body: string, facts: JobFacts): string {
  return body.replace(PLACEHOLDER, (whole, name: string) => {
    const named = NAMED.exec(name);
    if (named?.[1] !== 'job' || !JOB_FACTS.includes(named[2] as keyof JobFacts)) return whole;
    return asMarkdownText(facts[named[2] as keyof JobFacts]);
  });
}

/** Private-use characters around a field's number: markdown-it keeps them as plain text. */
const MARK_OPEN = '\uE000';
const MARK_CLOSE = '\uE001';
const MARKED = /\uE000(\d+)\uE001/g;
const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/** The keys of the fields marked in the text being rendered, by number: what its `env` carries. */
const fieldKeysOf = (env: unknown): string[] =>
  (env as { fieldKeys?: string[] } | undefined)?.fieldKeys ?? [];

/**
 * CommonMark without HTML (a tag in a template is shown as text), without pictures (an image
 * would load from anywhere when the page opens) and with links to http(s) and mailto only.
 */
const markdown = new MarkdownIt('default', { html: false, linkify: false, typographer: false }).disable(
  'image',
);
markdown.validateLink = (url) => SAFE_LINK.test(url.trim());
markdown.renderer.rules.text = (tokens, idx, _options, env) =>
  markdown.utils
    .escapeHtml(tokens[idx]!.content)
    .replace(
      MARKED,
      (_, index: string) =>
        `<span class="fill" data-fill="${markdown.utils.escapeHtml(fieldKeysOf(env)[Number(index)] ?? '')}"></span>`,
    );
markdown.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx]!.attrSet('rel', 'noopener noreferrer nofollow');
  return self.renderToken(tokens, idx, options);
};

/** Safe HTML of a filled body (markdown-it, html off, only http(s)/mailto links); {{fill.key}} → <span class="fill" data-fill="key"></span>. */
export function documentHtml(filled: string): string {
  const fieldKeys: string[] = [];
  const marked = filled.replace(/[\uE000\uE001]/g, '').replace(PLACEHOLDER, (whole, name: string) => {
    const named = NAMED.exec(name);
    if (named?.[1] !== 'fill') return whole;
    fieldKeys.push(named[2]!);
    return `${MARK_OPEN}${fieldKeys.length - 1}${MARK_CLOSE}`;
  });
  // A field in code reads as it was written: it is no place for an answer.
  return markdown
    .render(marked, { fieldKeys })
    .replace(MARKED, (_, index: string) => `{{fill.${fieldKeys[Number(index)]}}}`);
}

/** SHA-256 hex of the filled Markdown's UTF-8 bytes. */
export function documentSha256(filled: string): string {
  return createHash('sha256').update(filled, 'utf8').digest('hex');
}
