/**
 * A form template's text as plain functions: the problems of a template, the job's facts written
 * in as text (never as Markdown, HTML or a placeholder), the HTML a signer reads (inert, whatever
 * the template holds), and the hash of the filled text.
 */
import { createHash } from 'node:crypto';
import {
  documentHtml,
  documentSha256,
  fillJobFields,
  templateProblems,
  type JobFacts,
  type TemplateField,
} from '../../src/domain/forms/template-text';
import { DEMO_FORM_TEMPLATES } from '../../src/demo/form-templates';

const FACTS: JobFacts = {
  customer_name: 'Maria Alvarez',
  loss_address: '412 Birch Lane, Springfield, IL 62704',
  carrier: 'State Farm',
  claim_number: 'SF-26-118734',
  date_of_loss: 'March 14, 2026',
  company_name: 'Blue River Restoration',
  today: 'November 29, 2026',
  job_number: '16',
};

const field = (key: string, more: Partial<TemplateField> = {}): TemplateField => ({
  key,
  label: `Label of ${key}`,
  type: 'initials',
  required: true,
  signer: 'customer',
  ...more,
});

/** The HTML's text, tags taken out and the entities markdown-it writes read back. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

describe('templateProblems', () => {
  it('finds nothing wrong in a template that holds together, spaces inside the braces allowed', () => {
    expect(
      templateProblems(
        '# Authorization\n\n{{job.customer_name}} of {{ job.loss_address }} on {{job.today}}\n\nInitials {{fill.initials}}, tech {{fill.tech}}',
        [field('initials'), field('tech', { signer: 'technician', type: 'text' })],
        ['customer', 'technician'],
      ),
    ).toEqual([]);
  });

  it('names an unknown job placeholder, an undeclared fill key, a name of neither kind and an unclosed {{', () => {
    const problems = templateProblems(
      'For {{job.adjuster}} and {{fill.sign_here}} and {{customer_name}} and {{job.carrier}',
      [],
      ['customer'],
    );
    expect(problems.map((p) => p.pointer)).toEqual(['/body', '/body', '/body', '/body']);
    expect(problems[0]!.message).toMatch(
      /^unknown placeholder \{\{job\.adjuster\}\}: the job's are \{\{job\.customer_name\}\}/,
    );
    expect(problems[1]!.message).toBe(
      '{{fill.sign_here}} is not declared in fields (add a field with key "sign_here")',
    );
    expect(problems[2]!.message).toMatch(/^unknown placeholder \{\{customer_name\}\}/);
    expect(problems[3]!.message).toBe('"{{" without its closing "}}"');
  });

  it('names a field declared twice, one never used, one whose signer does not sign, and a bad key', () => {
    const problems = templateProblems(
      'A {{fill.a}} B {{fill.b}}',
      [field('a'), field('a'), field('b', { signer: 'office' }), field('unused'), field('Bad Key')],
      ['customer', 'technician'],
    );
    expect(problems).toEqual([
      { pointer: '/fields/1/key', message: '"a" is declared twice' },
      {
        pointer: '/fields/2/signer',
        message: '"office" is not among the template\'s signers (customer, technician)',
      },
      {
        pointer: '/fields/3/key',
        message: "is not used in the body: write {{fill.unused}} where the signer's answer goes",
      },
      {
        pointer: '/fields/4/key',
        message: 'must be 1 to 40 lower-case letters, digits or _, starting with a letter',
      },
    ]);
  });

  it('places a field once, however its braces are spaced', () => {
    expect(
      templateProblems(
        '{{fill.initials}} and {{ fill.initials }} and {{fill.initials}}',
        [field('initials')],
        ['customer'],
      ),
    ).toEqual([{ pointer: '/body', message: '{{fill.initials}} is placed more than once' }]);
  });

  it('wants the customer among the signers, each role once', () => {
    expect(templateProblems('Text', [], ['technician', 'technician'])).toEqual([
      { pointer: '/signers/1', message: '"technician" is listed twice' },
      { pointer: '/signers', message: 'must include customer: every form is signed by a customer' },
    ]);
  });

  it('refuses a field placed only inside code, where no answer can show', () => {
    expect(templateProblems('Initials: `{{fill.initials}}`', [field('initials')], ['customer'])).toEqual([
      {
        pointer: '/body',
        message:
          "{{fill.initials}} is inside code or a link's address, where the signer's answer cannot show",
      },
    ]);
  });

  it("passes the demo company's templates", () => {
    for (const template of DEMO_FORM_TEMPLATES)
      expect(templateProblems(template.body, template.fields, template.signers)).toEqual([]);
  });
});

describe('fillJobFields', () => {
  it("writes the job's facts in and keeps the signers' fields", () => {
    const filled = fillJobFields(
      'Job #{{job.job_number}} for {{ job.customer_name }} at {{job.loss_address}}, {{job.carrier}} claim {{job.claim_number}} ({{job.date_of_loss}}), {{job.company_name}} on {{job.today}}: {{fill.initials}}',
      FACTS,
    );
    expect(textOf(documentHtml(filled))).toBe(
      'Job #16 for Maria Alvarez at 412 Birch Lane, Springfield, IL 62704, State Farm claim SF-26-118734 (March 14, 2026), Blue River Restoration on November 29, 2026: \n',
    );
    expect(filled).toContain('{{fill.initials}}');
  });

  it('writes a fact as text: no Markdown, HTML, link, new block or placeholder comes of it', () => {
    const hostile: JobFacts = {
      ...FACTS,
      customer_name: '{{fill.initials}} *Bold* [me](https://evil.example) <script>alert(1)</script>',
      loss_address: '1. Main St\n# Heading\n\n    code',
      carrier: '`tick` _u_ \\ & &amp; | ~~s~~',
    };
    const filled = fillJobFields(
      '{{job.customer_name}}\n\n{{job.loss_address}}\n\n{{job.carrier}}\n\nInitials {{fill.initials}}',
      hostile,
    );
    const html = documentHtml(filled);
    expect(html.match(/data-fill/g)).toHaveLength(1);
    expect(html).not.toMatch(/<(script|a|em|strong|h1|ol|li|pre|code|s)\b/);
    expect(textOf(html)).toBe(
      [
        '{{fill.initials}} *Bold* [me](https://evil.example) <script>alert(1)</script>',
        '1. Main St # Heading code',
        '`tick` _u_ \\ & &amp; | ~~s~~',
        'Initials ',
        '',
      ].join('\n'),
    );
  });

  it('writes nothing for a fact the job does not have', () => {
    expect(fillJobFields('Carrier: {{job.carrier}}.', { ...FACTS, carrier: '' })).toBe('Carrier: .');
  });
});

describe('documentHtml', () => {
  it('marks each field where the answer goes', () => {
    expect(documentHtml('Initials: {{fill.initials}}, date {{ fill.signed_on }}')).toBe(
      '<p>Initials: <span class="fill" data-fill="initials"></span>, date <span class="fill" data-fill="signed_on"></span></p>\n',
    );
  });

  it('renders a template holding <script>, an event handler or a javascript: link inert', () => {
    const html = documentHtml(
      [
        '<script>alert(1)</script>',
        '<img src=x onerror="alert(2)">',
        '[click](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=) [rel](/admin)',
        '[spaced](  JAVASCRIPT:alert(4)) <javascript:alert(5)>',
        '![pic](https://tracker.example/p.png)',
        '[ok](https://example.com/terms) <mailto:office@example.com>',
      ].join('\n\n'),
    );
    expect(html).not.toMatch(/<script|<img|onerror="|href="(?!https:|mailto:)/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
    // Without pictures, an image's syntax is a link to it, which loads nothing until followed.
    expect(html.match(/<a /g)).toHaveLength(3);
    expect(html).toContain('<a href="https://example.com/terms" rel="noopener noreferrer nofollow">ok</a>');
    expect(html).toContain('<a href="mailto:office@example.com" rel="noopener noreferrer nofollow">');
  });

  it('keeps a field written in code as it was written', () => {
    expect(documentHtml('`{{fill.initials}}` and {{job.carrier}}')).toBe(
      '<p><code>{{fill.initials}}</code> and {{job.carrier}}</p>\n',
    );
  });

  it('ignores the private characters it marks fields with, if a text holds them', () => {
    expect(documentHtml('a\uE0000\uE001b {{fill.x}}')).toBe(
      '<p>a0b <span class="fill" data-fill="x"></span></p>\n',
    );
  });
});

describe('documentSha256', () => {
  it('is the SHA-256 of the UTF-8 bytes, and changes with a character', () => {
    const filled = fillJobFields('Für {{job.customer_name}}', FACTS);
    expect(documentSha256(filled)).toBe(
      createHash('sha256').update(Buffer.from(filled, 'utf8')).digest('hex'),
    );
    expect(documentSha256(filled)).toMatch(/^[0-9a-f]{64}$/);
    expect(documentSha256(`${filled} `)).not.toBe(documentSha256(filled));
  });
});
