/** The spec is the source of truth: generated files match it, it lints clean, every operation has a handler. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { operations, type OperationName } from '../../src/generated/operations';
import { handlers } from '../../src/tools';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

describe('the OpenAPI contract', () => {
  it('generated files are what codegen makes from the spec today', async () => {
    await expect(run(bin('tsx'), ['codegen/generate.ts', '--check'], { cwd: root })).resolves.toBeDefined();
  });

  it('lints clean with Redocly', async () => {
    const { stdout, stderr } = await run(
      bin('redocly'),
      ['lint', '--config', 'openapi/redocly.yaml', 'src/generated/openapi.json'],
      {
        cwd: root,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    expect(`${stdout}${stderr}`).toMatch(/valid/i);
    expect(`${stdout}${stderr}`).not.toMatch(/You have \d+ warning/);
  });

  it('every operation has a handler and every handler an operation', () => {
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(operations).sort());
    for (const name of Object.keys(operations) as OperationName[])
      expect(typeof handlers[name]).toBe('function');
  });

  it('every tool is described for an assistant and carries its scope, credit rule and MCP flag', () => {
    for (const op of Object.values(operations)) {
      expect(op.name).toMatch(/^[a-z][a-z_]+$/);
      expect(op.summary.length).toBeGreaterThan(5);
      expect(op.description.length).toBeGreaterThan(30);
      expect(['read', 'write', 'admin']).toContain(op.scope);
      if (op.mcp) {
        expect(op.scope).not.toBe('admin');
        expect(op.annotations).not.toBeNull();
        expect(op.annotations!.readOnlyHint).toBe(op.scope === 'read');
      }
      if (op.scope === 'write' && op.hasBody) expect(op.bodyParams).toContain('operation_id');
    }
  });

  it('offers the tools of this stage over MCP, and administration only over HTTP', () => {
    const mcpTools = Object.values(operations)
      .filter((op) => op.mcp)
      .map((op) => op.name);
    expect(mcpTools).toEqual(
      expect.arrayContaining([
        'get_context',
        'get_guide',
        'list_team',
        'list_job_statuses',
        'list_referral_sources',
        'create_job',
        'get_job',
        'find_jobs',
        'list_changes',
        'undo_my_last_action',
      ]),
    );
    expect(mcpTools.filter((name) => name.startsWith('admin_'))).toEqual([]);
  });
});
