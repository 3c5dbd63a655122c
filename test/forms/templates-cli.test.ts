/** The admin CLI's form templates: from a Markdown file, listed, shown by version, a new version, archived; a problem names its field. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_TOKEN, createCompany, startApp, type TestApp } from '../support/app';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
let t: TestApp;

beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

const cli = (...args: string[]) =>
  run(path.join(root, 'node_modules', '.bin', 'tsx'), ['src/transports/cli/admin-cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, JMS_URL: t.url, ADMIN_TOKEN },
  });
const failure = (error: { code: number; stderr: string }) => error;

const FIELDS = [
  { key: 'initials', label: 'Your initials', type: 'initials', required: true, signer: 'customer' },
  { key: 'tech', label: "Technician's initials", type: 'initials', required: true, signer: 'technician' },
];

describe('the admin CLI: templates (admin_create_form_template and the other template tools)', () => {
  it('creates a template from a Markdown file, lists, shows by version, publishes a new version keeping its fields, archives', async () => {
    const co = await createCompany(t);
    const dir = await mkdtemp(path.join(tmpdir(), 'jms-template-'));
    const body = path.join(dir, 'completion.md');
    const fields = path.join(dir, 'fields.json');
    try {
      await writeFile(body, '# Done\n\n{{job.customer_name}}: {{fill.initials}}, tech {{fill.tech}}\n');
      await writeFile(fields, JSON.stringify(FIELDS));
      const args = ['--company', co.id, '--name', 'Completion', '--kind', 'certificate_of_completion'];
      const made = JSON.parse(
        (
          await cli(
            'templates',
            'create',
            ...args,
            '--file',
            body,
            '--fields',
            fields,
            '--signers',
            'customer,technician',
          )
        ).stdout,
      );
      expect(made).toMatchObject({
        id: expect.stringMatching(/^ftp_/),
        name: 'Completion',
        kind: 'certificate_of_completion',
        version: 1,
        signers: ['customer', 'technician'],
        fields: FIELDS,
        body: '# Done\n\n{{job.customer_name}}: {{fill.initials}}, tech {{fill.tech}}\n',
      });
      expect(JSON.parse((await cli('templates', 'list', '--company', co.id)).stdout).data).toEqual([made]);

      // A new text alone: the fields and signers stay the current version's.
      await writeFile(body, '# Finished\n\n{{fill.initials}} {{fill.tech}}\n');
      const second = JSON.parse(
        (await cli('templates', 'publish', '--company', co.id, made.id, '--file', body)).stdout,
      );
      expect(second).toMatchObject({ version: 2, fields: FIELDS, signers: ['customer', 'technician'] });
      expect(
        JSON.parse((await cli('templates', 'show', '--company', co.id, made.id, '--version', '1')).stdout)
          .body,
      ).toBe(made.body);
      expect(JSON.parse((await cli('templates', 'show', '--company', co.id, made.id)).stdout).version).toBe(
        2,
      );

      // A field the body no longer uses is named, with the path of the field.
      await writeFile(body, 'Only {{fill.initials}}\n');
      const refused = await cli('templates', 'publish', '--company', co.id, made.id, '--file', body).catch(
        failure,
      );
      expect(refused).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /422 invalid_form_template: .*\n {2}\/body\/fields\/1\/key: is not used in the body/,
        ),
      });
      const archived = JSON.parse((await cli('templates', 'archive', '--company', co.id, made.id)).stdout);
      expect(archived.archived_at).toEqual(expect.any(String));
      const closed = await cli('templates', 'publish', '--company', co.id, made.id, '--file', body).catch(
        failure,
      );
      expect(closed).toMatchObject({ code: 1, stderr: expect.stringContaining('409 invalid_state') });

      const unknown = await cli('templates', 'show', '--company', co.id, 'ftp_unknown0000').catch(failure);
      expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('404 not_found') });
      const keep = await cli(
        'templates',
        'publish',
        '--company',
        co.id,
        'ftp_unknown0000',
        '--file',
        body,
      ).catch(failure);
      expect(keep).toMatchObject({ code: 1, stderr: expect.stringContaining('404 not_found') });
      await writeFile(fields, 'not json');
      const notJson = await cli('templates', 'create', ...args, '--file', body, '--fields', fields).catch(
        failure,
      );
      expect(notJson).toMatchObject({ code: 1, stderr: expect.stringContaining('is not JSON') });
      const noFile = await cli('templates', 'create', ...args).catch(failure);
      expect(noFile).toMatchObject({ code: 1, stderr: expect.stringContaining('--file is required') });
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
