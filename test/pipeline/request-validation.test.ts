/**
 * The one request check (src/platform/validation.ts) at the edges a spec fuzzer found: values
 * with reserved characters sent as curl sends them, multipart parts without a filename or a name,
 * over-long URLs and headers, an unknown MCP tool, and the rules across parameters that the spec
 * now states. HTTP and MCP give the same field errors for the same mistake.
 */
import { request as httpRequest } from 'node:http';
import { ProtocolErrorCode, type Client } from '@modelcontextprotocol/client';
import { as, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { callTool, connectMcp, problemOf } from '../support/mcp';
import { openJob, type CreatedJob } from '../support/jobs';
import { pngOf } from '../support/photo-files';

let t: TestApp;
let co: TestCompany;
let job: CreatedJob;
let mcp: Client;

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  job = await openJob(t, co.writeKey, { customer_name: 'Vera Validation' });
  mcp = await connectMcp(t, co.writeKey);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

/** Sends bytes as they are: no client library re-encodes the URL or rewrites the body. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer,
): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, method, path, headers, insecureHTTPParser: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          type: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

function multipart(parts: { disposition: string; type?: string; data: Buffer | string }[]): {
  body: Buffer;
  type: string;
} {
  const boundary = '----jms-validation-test';
  const chunks = parts.flatMap(({ disposition, type, data }) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`,
    ),
    Buffer.isBuffer(data) ? data : Buffer.from(data),
    Buffer.from('\r\n'),
  ]);
  return {
    body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

describe('values with reserved characters, sent unencoded', () => {
  it('list_changes takes since as the spec writes a date-time (2026-11-01T00:00:00Z)', async () => {
    const res = await raw('GET', '/api/v1/changes?since=2026-11-01T00:00:00Z', {
      Authorization: `Bearer ${co.readKey}`,
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toHaveProperty('data');
  });

  it('a DELETE takes an operation_id with : and @, and read_document a q with : and /', async () => {
    const note = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/notes`)
      .send({ operation_id: opId(), text: 'Moisture meter calibrated.' })
      .expect(201);
    const retracted = await raw(
      'DELETE',
      `/api/v1/jobs/${job.id}/notes/${note.body.id}?operation_id=retract:${opId()}@office`,
      { Authorization: `Bearer ${co.writeKey}` },
    );
    expect(retracted.status).toBe(200);
    const document = await raw('GET', '/api/v1/documents/doc_none?q=policy:section/4', {
      Authorization: `Bearer ${co.readKey}`,
    });
    expect({ status: document.status, code: JSON.parse(document.body).code }).toEqual({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('multipart parts', () => {
  it('a file part without filename= is named, not reported as a second meta', async () => {
    const png = await pngOf(8, 8);
    const { body, type } = multipart([
      { disposition: 'name="meta"', data: JSON.stringify({ operation_id: opId() }) },
      { disposition: 'name="photo"', type: 'image/png', data: png },
    ]);
    const res = await raw(
      'POST',
      `/api/v1/jobs/${job.id}/photos`,
      { Authorization: `Bearer ${co.writeKey}`, 'Content-Type': type, 'Content-Length': body.length },
      body,
    );
    expect(res.status).toBe(400);
    const problem = JSON.parse(res.body) as { errors: { path: string; message: string }[] };
    expect(problem.errors).toEqual([
      { path: '/body/photo', message: expect.stringContaining('without a filename') },
    ]);
  });

  it('a part with an empty name or none is reported at /body; meta twice at /body/meta', async () => {
    for (const disposition of ['name=""; filename="a.png"', 'filename="a.png"']) {
      const { body, type } = multipart([
        { disposition: 'name="meta"', data: JSON.stringify({ operation_id: opId() }) },
        { disposition, type: 'image/png', data: await pngOf(8, 8) },
      ]);
      const res = await raw(
        'POST',
        `/api/v1/jobs/${job.id}/photos`,
        { Authorization: `Bearer ${co.writeKey}`, 'Content-Type': type, 'Content-Length': body.length },
        body,
      );
      expect({
        disposition,
        status: res.status,
        paths: (JSON.parse(res.body) as { errors: { path: string }[] }).errors.map((e) => e.path),
      }).toEqual({ disposition, status: 400, paths: ['/body'] });
    }
    const meta = JSON.stringify({ operation_id: opId() });
    const { body, type } = multipart([
      { disposition: 'name="meta"', data: meta },
      { disposition: 'name="meta"', data: meta },
    ]);
    const twice = await raw(
      'POST',
      `/api/v1/jobs/${job.id}/photos`,
      { Authorization: `Bearer ${co.writeKey}`, 'Content-Type': type, 'Content-Length': body.length },
      body,
    );
    expect(JSON.parse(twice.body).errors).toEqual([{ path: '/body/meta', message: 'must be sent once' }]);
  });

  it('meta is checked by the same check as JSON bodies: the same field errors', async () => {
    const { body, type } = multipart([
      { disposition: 'name="meta"', data: JSON.stringify({ operation_id: opId(), room: 7, surprise: true }) },
      { disposition: 'name="photo"; filename="a.png"', type: 'image/png', data: await pngOf(8, 8) },
    ]);
    const res = await raw(
      'POST',
      `/api/v1/jobs/${job.id}/photos`,
      { Authorization: `Bearer ${co.writeKey}`, 'Content-Type': type, 'Content-Length': body.length },
      body,
    );
    expect(res.status).toBe(400);
    expect((JSON.parse(res.body).errors as { path: string }[]).map((e) => e.path).sort()).toEqual([
      '/body/meta/room',
      '/body/meta/surprise',
    ]);
  });
});

describe('sizes of the request line and headers', () => {
  it('a URL over 8 KiB (a 20 KB query) answers 414 uri_too_long as a problem; the spec lists 414', async () => {
    const res = await raw('GET', `/api/v1/jobs?q=${'a'.repeat(20_000)}`, {
      Authorization: `Bearer ${co.readKey}`,
    });
    expect(res.status).toBe(414);
    expect(res.type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.body)).toMatchObject({ status: 414, code: 'uri_too_long' });
    const spec = (await t.http.get('/api/v1/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    };
    const without = Object.entries(spec.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.responses && !op.responses['414'])
        .map(([method]) => `${method} ${path}`),
    );
    expect(without).toEqual([]);
  });

  it('headers over 64 KiB answer 431 headers_too_large as a problem', async () => {
    const res = await raw('GET', '/api/v1/jobs', {
      Authorization: `Bearer ${co.readKey}`,
      'X-Padding': 'p'.repeat(70_000),
    });
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });
});

describe('MCP', () => {
  it('an unknown tool is the JSON-RPC error -32602, not a tool result', async () => {
    await expect(callTool(mcp, 'delete_everything', {})).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
    });
  });

  it('the same mistakes give the same field errors over HTTP (under /body, /query) and MCP (the argument)', async () => {
    const http = await as(t, co.writeKey)
      .post(`/api/v1/jobs/${job.id}/notes`)
      .send({ operation_id: opId(), text: 5, colour: 'red' })
      .expect(400);
    const overMcp = problemOf(
      await callTool(mcp, 'add_note', { job_id: job.id, operation_id: opId(), text: 5, colour: 'red' }),
    );
    expect(overMcp.errors).toEqual(
      (http.body.errors as { path: string; message: string }[]).map((e) => ({
        ...e,
        path: e.path.replace(/^\/body/, ''),
      })),
    );
    const query = await as(t, co.readKey).get('/api/v1/jobs?limit=0').expect(400);
    const mcpQuery = problemOf(await callTool(mcp, 'find_jobs', { limit: 0 }));
    expect(mcpQuery.errors).toEqual([{ ...query.body.errors[0], path: '/limit' }]);
  });
});

describe('rules across parameters, stated in the spec', () => {
  it('view_photos: photo_ids or job_id, not both and not neither; room only with job_id (HTTP and MCP)', async () => {
    for (const query of ['', `job_id=${job.id}&photo_ids=pho_x`, 'photo_ids=pho_x&room=Kitchen']) {
      const res = await as(t, co.readKey).get(`/api/v1/photos?${query}`);
      expect({ query, status: res.status, code: res.body.code }).toEqual({
        query,
        status: 400,
        code: 'invalid_request',
      });
    }
    expect(problemOf(await callTool(mcp, 'view_photos', { job_id: job.id, photo_ids: ['pho_x'] })).code).toBe(
      'invalid_request',
    );
    expect((await callTool(mcp, 'view_photos', { job_id: job.id })).isError).toBeFalsy();
  });

  it('skip_drying_day needs day or date; update_drying_settings: area needs planned_days, and null planned_days needs area', async () => {
    const base = `/api/v1/jobs/${job.id}/drying-log`;
    const skip = await as(t, co.writeKey)
      .post(`${base}/skip-day`)
      .send({ operation_id: opId(), reason: 'no access' })
      .expect(400);
    expect((skip.body.errors as { path: string }[]).map((e) => e.path)).toEqual(
      expect.arrayContaining(['/body/day', '/body/date']),
    );
    const areaOnly = await as(t, co.writeKey)
      .patch(`${base}/settings`)
      .send({ operation_id: opId(), area: 'Kitchen' })
      .expect(400);
    expect((areaOnly.body.errors as { path: string }[]).map((e) => e.path)).toContain('/body/planned_days');
    const jobNull = await as(t, co.writeKey)
      .patch(`${base}/settings`)
      .send({ operation_id: opId(), planned_days: null })
      .expect(400);
    expect((jobNull.body.errors as { path: string }[]).map((e) => e.path)).toContain('/body/area');
  });
});
