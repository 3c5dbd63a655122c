/**
 * A signed form's PDF as a pdfmake document: the document as signed (the frozen filled text with
 * each signer's values in place), each signer's signature (drawn from their strokes as an SVG
 * path, or their PNG) with their typed name, then the audit page: who signed and how to reach
 * them, the consent they agreed to, when the link was made, opened and signed, from which
 * address and browser, which link, the template and its version, and the document's SHA-256.
 * Pure: the PNGs come in already checked and made for print.
 */
import MarkdownIt from 'markdown-it';
import type { Content, ContentText, StyleDictionary, TDocumentDefinitions } from 'pdfmake/interfaces';
import type { Signature } from './form-records';
import type { SignerRole, TemplateField } from './template-text';

export interface FormPdfSigner {
  role: SignerRole;
  name: string;
  email: string | null;
  phone: string | null;
  link_id: string;
  opened_at: string | null;
  opened_ip: string | null;
  opened_user_agent: string | null;
  signed_at: string;
  signed_ip: string | null;
  signed_user_agent: string | null;
  typed_name: string;
  signature: Signature;
  values: Record<string, string | boolean>;
  consent_version: string;
  consent_text: string;
}

export interface FormPdfData {
  form_id: string;
  company_name: string;
  job_number: number;
  title: string;
  kind: string;
  template_id: string;
  template_version: number;
  body: string;
  document_sha256: string;
  fields: TemplateField[];
  requested_at: string;
  requested_by: string;
  expires_at: string;
  signers: FormPdfSigner[];
}

/** Each PNG signature, by role, as pdfmake reads it (a data URL). */
export type SignaturePictures = Partial<Record<SignerRole, string>>;

const GREY = '#5f6368';
const RULE = '#c8ccd0';
const ROLE_NAMES: Record<SignerRole, string> = {
  customer: 'Customer',
  technician: 'Technician',
  office: 'Office',
};
/** The box a signature is fitted in. */
const SIGNATURE_BOX: [number, number] = [220, 80];
const BLANK = '__________';

export function formPdfDocument(data: FormPdfData, pictures: SignaturePictures): TDocumentDefinitions {
  const values = Object.assign({}, ...data.signers.map((signer) => signer.values)) as Record<
    string,
    string | boolean
  >;
  const types = new Map(data.fields.map((field) => [field.key, field.type]));
  return {
    pageSize: 'LETTER',
    pageMargins: [48, 48, 48, 52],
    info: { title: `${data.title} (signed)`, author: data.company_name, subject: `Job #${data.job_number}` },
    defaultStyle: { font: 'Roboto', fontSize: 10, lineHeight: 1.2 },
    styles: STYLES,
    images: Object.fromEntries(Object.entries(pictures).map(([role, url]) => [`signature-${role}`, url])),
    content: [
      { text: data.company_name, style: 'company' },
      { text: data.title, style: 'title' },
      { text: `Job #${data.job_number}`, style: 'muted', margin: [0, 0, 0, 12] },
      ...markdownContent(data.body, (key) => fillText(values[key], types.get(key))),
      { text: 'Signatures', style: 'h2', margin: [0, 18, 0, 6] },
      ...data.signers.map((signer) => signatureBlock(signer, pictures)),
      auditPage(data),
    ],
    footer: (page, pages) => ({
      columns: [
        { text: `${data.title} · form ${data.form_id}` },
        { text: `Page ${page} of ${pages}`, alignment: 'right', width: 'auto' },
      ],
      style: 'footer',
      margin: [48, 18, 48, 0],
    }),
  };
}

const STYLES: StyleDictionary = {
  company: { fontSize: 11, bold: true, color: GREY },
  title: { fontSize: 20, bold: true, margin: [0, 2, 0, 2] },
  h1: { fontSize: 15, bold: true, margin: [0, 10, 0, 4] },
  h2: { fontSize: 13, bold: true, margin: [0, 8, 0, 4] },
  h3: { fontSize: 11, bold: true, margin: [0, 6, 0, 3] },
  muted: { color: GREY },
  small: { fontSize: 8, color: GREY },
  fill: { bold: true, decoration: 'underline' },
  footer: { fontSize: 7, color: GREY },
  label: { bold: true },
};

/** A signer's value as printed: a checkbox as [x] or [ ], a missing value as a blank line. */
function fillText(value: string | boolean | undefined, type: TemplateField['type'] | undefined): string {
  if (type === 'checkbox') return value === true ? '[x]' : '[ ]';
  if (typeof value === 'string' && value !== '') return value;
  return BLANK;
}

type Token = MarkdownIt.Token;

const FILL = /\{\{\s*fill\.([A-Za-z0-9_]+)\s*\}\}/g;
const markdown = new MarkdownIt({ html: false, linkify: false });

/**
 * The Markdown's blocks as pdfmake content: headings, paragraphs, lists (nested), quotes, rules,
 * code and tables. Inline bold and italics are kept, a link prints its text and address, and each
 * `{{fill.key}}` prints the signer's value.
 */
export function markdownContent(body: string, fill: (key: string) => string): Content[] {
  const tokens = markdown.parse(body, {});
  return blocks(tokens, 0, tokens.length, fill);
}

function blocks(tokens: Token[], from: number, to: number, fill: (key: string) => string): Content[] {
  const out: Content[] = [];
  for (let i = from; i < to; i++) {
    const token = tokens[i];
    if (token.type === 'inline') {
      out.push({ text: inlineRuns(token.children ?? [], fill), margin: [0, 0, 0, 6] });
    } else if (token.type === 'heading_open') {
      const end = closing(tokens, i);
      const level = Math.min(Number(token.tag.slice(1)), 3);
      out.push({ text: inlineRuns(tokens[i + 1].children ?? [], fill), style: `h${level}` });
      i = end;
    } else if (token.type === 'bullet_list_open' || token.type === 'ordered_list_open') {
      const end = closing(tokens, i);
      const items = listItems(tokens, i + 1, end, fill);
      out.push(
        token.type === 'bullet_list_open'
          ? { ul: items, margin: [0, 0, 0, 6] }
          : { ol: items, margin: [0, 0, 0, 6] },
      );
      i = end;
    } else if (token.type === 'blockquote_open') {
      const end = closing(tokens, i);
      out.push({ stack: blocks(tokens, i + 1, end, fill), margin: [16, 0, 0, 6], italics: true });
      i = end;
    } else if (token.type === 'hr') {
      out.push({
        canvas: [{ type: 'line', x1: 0, y1: 4, x2: 516, y2: 4, lineWidth: 0.5, lineColor: RULE }],
        margin: [0, 4, 0, 8],
      });
    } else if (token.type === 'fence' || token.type === 'code_block') {
      out.push({
        text: token.content.replace(/\n$/, ''),
        preserveLeadingSpaces: true,
        margin: [12, 0, 0, 6],
      });
    } else if (token.type === 'table_open') {
      const end = closing(tokens, i);
      out.push(table(tokens, i + 1, end, fill));
      i = end;
    }
  }
  return out;
}

/** The index of the token that closes the one at `at` (its `_close` at the same nesting). */
function closing(tokens: Token[], at: number): number {
  const close = tokens[at].type.replace(/_open$/, '_close');
  let depth = 0;
  for (let i = at; i < tokens.length; i++) {
    if (tokens[i].type === tokens[at].type) depth++;
    else if (tokens[i].type === close && --depth === 0) return i;
  }
  return tokens.length - 1;
}

function listItems(tokens: Token[], from: number, to: number, fill: (key: string) => string): Content[] {
  const items: Content[] = [];
  for (let i = from; i < to; i++) {
    if (tokens[i].type !== 'list_item_open') continue;
    const end = closing(tokens, i);
    const inner = blocks(tokens, i + 1, end, fill);
    items.push(inner.length === 1 ? inner[0] : { stack: inner });
    i = end;
  }
  return items;
}

function table(tokens: Token[], from: number, to: number, fill: (key: string) => string): Content {
  const rows: Content[][] = [];
  let row: Content[] | null = null;
  for (let i = from; i < to; i++) {
    const token = tokens[i];
    if (token.type === 'tr_open') row = [];
    else if (token.type === 'tr_close' && row) rows.push(row);
    else if (token.type === 'inline' && row) row.push({ text: inlineRuns(token.children ?? [], fill) });
  }
  const columns = Math.max(1, ...rows.map((r) => r.length));
  const body = rows.map((r) => [...r, ...Array.from({ length: columns - r.length }, () => '')]);
  return { table: { widths: Array.from({ length: columns }, () => '*'), body }, margin: [0, 0, 0, 6] };
}

/** Inline runs with their bold and italics; links print their address after their text. */
function inlineRuns(children: Token[], fill: (key: string) => string): ContentText[] {
  const runs: ContentText[] = [];
  let bold = 0;
  let italics = 0;
  let href: string | null = null;
  const push = (text: string) => {
    for (const part of withFills(text, fill))
      runs.push({
        text: part.text,
        bold: bold > 0 || undefined,
        italics: italics > 0 || undefined,
        ...(part.fill ? { style: 'fill' } : {}),
      });
  };
  for (const child of children) {
    if (child.type === 'text' || child.type === 'code_inline') push(child.content);
    else if (child.type === 'softbreak') push(' ');
    else if (child.type === 'hardbreak') push('\n');
    else if (child.type === 'strong_open') bold++;
    else if (child.type === 'strong_close') bold--;
    else if (child.type === 'em_open') italics++;
    else if (child.type === 'em_close') italics--;
    else if (child.type === 'link_open') href = String(child.attrGet('href') ?? '') || null;
    else if (child.type === 'link_close') {
      if (href) push(` (${href})`);
      href = null;
    }
  }
  return runs;
}

/** The text cut at each `{{fill.key}}`, the signer's value in its place. */
function withFills(text: string, fill: (key: string) => string): { text: string; fill: boolean }[] {
  const parts: { text: string; fill: boolean }[] = [];
  let last = 0;
  for (const match of text.matchAll(FILL)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), fill: false });
    parts.push({ text: fill(match[1]), fill: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), fill: false });
  return parts;
}

function signatureBlock(signer: FormPdfSigner, pictures: SignaturePictures): Content {
  const drawing: Content =
    'png' in signer.signature
      ? pictures[signer.role]
        ? { image: `signature-${signer.role}`, fit: SIGNATURE_BOX }
        : { text: '(signature picture not available)', style: 'muted' }
      : { svg: strokesSvg(signer.signature), fit: SIGNATURE_BOX };
  return {
    unbreakable: true,
    margin: [0, 6, 0, 10],
    stack: [
      { text: `${ROLE_NAMES[signer.role]}: ${signer.name}`, style: 'label' },
      drawing,
      {
        canvas: [
          { type: 'line', x1: 0, y1: 2, x2: SIGNATURE_BOX[0], y2: 2, lineWidth: 0.5, lineColor: RULE },
        ],
      },
      {
        text: `Signed electronically as "${signer.typed_name}" on ${moment(signer.signed_at)}`,
        style: 'small',
      },
    ],
  };
}

/**
 * The strokes as one SVG path in their own box (the pad's size): each stroke a line through its
 * points; a stroke of one point (a dot) a short line, so that it shows.
 */
export function strokesSvg(signature: { strokes: number[][][]; width: number; height: number }): string {
  const round = (n: number) => Math.round(n * 10) / 10;
  const d = signature.strokes
    .map((stroke) => {
      const points = stroke.length === 1 ? [stroke[0], [stroke[0][0] + 0.5, stroke[0][1]]] : stroke;
      return points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${round(x)} ${round(y)}`).join(' ');
    })
    .join(' ');
  const { width, height } = signature;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><path d="${d}" fill="none" stroke="#111111" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
}

/** The audit page: the form's facts, then each signer's. */
function auditPage(data: FormPdfData): Content {
  return {
    pageBreak: 'before',
    stack: [
      { text: 'Audit trail', style: 'title' },
      {
        text: `${data.title} · ${data.company_name} · Job #${data.job_number}`,
        style: 'muted',
        margin: [0, 0, 0, 10],
      },
      facts([
        ['Form', data.form_id],
        ['Template', `${data.template_id}, version ${data.template_version} (${data.kind})`],
        ['Link made', `${moment(data.requested_at)} by ${data.requested_by}`],
        ['Link expires', moment(data.expires_at)],
      ]),
      { text: 'SHA-256 of the document as shown to the signers:', margin: [0, 8, 0, 0] },
      { text: data.document_sha256, fontSize: 8.5, margin: [0, 2, 0, 6] },
      ...data.signers.map(signerAudit),
    ],
  };
}

function signerAudit(signer: FormPdfSigner): Content {
  return {
    margin: [0, 10, 0, 0],
    stack: [
      { text: `${ROLE_NAMES[signer.role]}: ${signer.name}`, style: 'h2' },
      facts([
        ['Email', signer.email ?? '-'],
        ['Phone', signer.phone ?? '-'],
        ['Typed name', signer.typed_name],
        ['Link', signer.link_id],
        ['Opened', signer.opened_at ? moment(signer.opened_at) : '-'],
        ['Opened from', `${signer.opened_ip ?? '-'} · ${signer.opened_user_agent ?? '-'}`],
        ['Signed', moment(signer.signed_at)],
        ['Signed from', `${signer.signed_ip ?? '-'} · ${signer.signed_user_agent ?? '-'}`],
        ['Consent', `agreed before signing (version ${signer.consent_version}):`],
      ]),
      { text: signer.consent_text, style: 'small', margin: [90, 2, 0, 0] },
    ],
  };
}

function facts(rows: [string, string][]): Content {
  return {
    table: {
      widths: [84, '*'],
      body: rows.map(([label, value]) => [{ text: label, style: 'label' }, { text: value }]),
    },
    layout: 'noBorders',
  };
}

/** A moment as people read it in a record: `2026-11-29 14:03:27 UTC`. */
function moment(iso: string): string {
  return `${new Date(iso).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}
