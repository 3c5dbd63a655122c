/**
 * OAuth 2.1 for assistants, over HTTP as a client sends it: discovery (401 → protected resource
 * metadata → authorization server metadata), dynamic registration, the approval page's form, the
 * code exchange with PKCE, tokens acting as the person, refresh, revocation, and every refusal the
 * MCP authorization specification and RFC 9700 ask for. The browser and the SDK client go
 * through the same flow in oauth-client.browser.test.ts.
 */
import {
  as,
  createCompany,
  opId,
  startApp,
  ADMIN_TOKEN,
  type TestApp,
  type TestCompany,
} from '../support/app';
import {
  answerApproval,
  exchange,
  mcpCall,
  newPkce,
  openApproval,
  redirectParams,
  registerClient,
  REDIRECT_URI,
  tokensFor,
  authorizeQuery,
} from '../support/oauth';
import { hashSecret } from '../../src/platform/ids';
import { purgeExpiredOAuthRows } from '../../src/platform/oauth/expired';

let t: TestApp;
let co: TestCompany;
let other: TestCompany;

const admin = (req: ReturnType<TestApp['http']['get']>) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);

beforeAll(async () => {
  t = await startApp();
  co = await createCompany(t);
  other = await createCompany(t);
});
afterAll(() => t.close());

interface ListedGrant {
  id: string;
  client: { id: string; name: string };
  revoked_at: string | null;
  ended_by_key: boolean;
}

/** The admin API's line for the grant of a client. */
async function grantOf(clientId: string, company = co): Promise<ListedGrant> {
  const listed = await admin(t.http.get(`/admin/v1/companies/${company.id}/assistant-grants`)).expect(200);
  return (listed.body.data as ListedGrant[]).find((g) => g.client.id === clientId)!;
}

function refreshWith(tokens: { refresh_token: string; clientId: string }) {
  return exchange(t, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: tokens.clientId,
  });
}

/** A tool call's problem, when the call was refused. */
function problemOf(res: {
  body: { result?: { isError?: boolean; content: { text: string }[] } };
}): { status: number; code: string } | null {
  return res.body.result?.isError ? JSON.parse(res.body.result.content[0].text) : null;
}

describe('discovery', () => {
  it('a request without a credential is 401 naming the resource metadata, which names this authorization server', async () => {
    const res = await t.http
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(401);
    const header = res.headers['www-authenticate'];
    expect(header).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(header).toContain('scope="read write"');
    const resource = (await t.http.get('/.well-known/oauth-protected-resource/mcp').expect(200)).body;
    expect(resource).toMatchObject({
      resource: `${t.url}/mcp`,
      authorization_servers: [`${t.url}/`],
      scopes_supported: ['read', 'write'],
    });
    const api = (await t.http.get('/.well-known/oauth-protected-resource/api/v1').expect(200)).body;
    expect(api.resource).toBe(`${t.url}/api/v1`);
    expect((await t.http.get('/api/v1/jobs').expect(401)).headers['www-authenticate']).toContain(
      `resource_metadata="${t.url}/.well-known/oauth-protected-resource/api/v1"`,
    );
    const server = (await t.http.get('/.well-known/oauth-authorization-server').expect(200)).body;
    expect(server).toMatchObject({
      issuer: `${t.url}/`,
      authorization_endpoint: `${t.url}/authorize`,
      token_endpoint: `${t.url}/token`,
      registration_endpoint: `${t.url}/register`,
      revocation_endpoint: `${t.url}/revoke`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('dynamic registration makes a public client: no secret is issued or stored', async () => {
    const res = await t.http
      .post('/register')
      .send({
        client_name: 'Confidential Bot',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'client_secret_post',
      })
      .expect(201);
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.token_endpoint_auth_method).toBe('none');
    const stored = await t.db('oauth_clients').where({ id: res.body.client_id }).first('metadata');
    expect(JSON.stringify(stored.metadata)).not.toContain('client_secret"');
  });
});

describe('an approved assistant', () => {
  it('acts as the approving person through /mcp, marks the feed with its name, and its tokens are stored hashed', async () => {
    const tokens = await tokensFor(t, co.writeKey, { clientName: 'Claude at the office' });
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'write' });
    expect(tokens.access_token).toMatch(/^jms_at_/);
    expect(tokens.refresh_token).toMatch(/^jms_rt_/);
    const listed = await mcpCall(t, tokens.access_token, 'tools/list').expect(200);
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name)).toContain('create_job');
    const created = await mcpCall(t, tokens.access_token, 'tools/call', {
      name: 'create_job',
      arguments: { operation_id: opId(), customer_name: 'Olive Oauth' },
    }).expect(200);
    expect(problemOf(created)).toBeNull();
    const job = created.body.result.structuredContent;
    expect(job.created_by.name).toBe(co.people[0].name);
    const feed = (await as(t, co.readKey).get('/api/v1/changes?limit=100').expect(200)).body.data as {
      action: string;
      job: { id: string } | null;
      via_client: string | null;
    }[];
    expect(feed.find((e) => e.job?.id === job.id)).toMatchObject({
      action: 'job.created',
      via_client: 'Claude at the office',
    });
    const activity = (await as(t, co.readKey).get(`/api/v1/jobs/${job.id}/activity`).expect(200)).body.data;
    expect(activity[0].via_client).toBe('Claude at the office');
    const context = (
      await mcpCall(t, tokens.access_token, 'tools/call', { name: 'get_context', arguments: {} })
    ).body.result.structuredContent;
    expect(context.key.id).toMatch(/^agr_/);
    // Stored as hashes only.
    const stored = await t.db('oauth_tokens').pluck('token_hash');
    expect(stored).not.toContain(tokens.access_token);
    expect(stored.every((hash: string) => /^[0-9a-f]{64}$/.test(hash))).toBe(true);
  });

  it('a read grant may read but a write is 403, as with a read key; a read key cannot grant write', async () => {
    const tokens = await tokensFor(t, co.writeKey, { chosenScope: 'read' });
    expect(tokens.scope).toBe('read');
    const names = (await mcpCall(t, tokens.access_token, 'tools/list')).body.result.tools.map(
      (tool: { name: string }) => tool.name,
    );
    expect(names).toContain('get_job');
    expect(names).not.toContain('create_job');
    const write = await mcpCall(t, tokens.access_token, 'tools/call', {
      name: 'create_job',
      arguments: { operation_id: opId() },
    });
    expect(problemOf(write)).toMatchObject({ status: 403, code: 'write_key_required' });

    const clientId = await registerClient(t);
    const request = await openApproval(t, { clientId, pkce: newPkce() });
    const refused = await answerApproval(t, { request, credential: co.readKey, scope: 'write' }).expect(403);
    expect(refused.text).toContain('That key is read-only');
    expect(await t.db('oauth_grants').where({ client_id: clientId }).first()).toBeUndefined();
  });

  it("another company's ids are 404 through a token, as with a key", async () => {
    const theirs = (
      await as(t, other.writeKey)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Not Yours' })
        .expect(201)
    ).body;
    const tokens = await tokensFor(t, co.writeKey);
    const read = await mcpCall(t, tokens.access_token, 'tools/call', {
      name: 'get_job',
      arguments: { job_id: theirs.id },
    });
    expect(problemOf(read)).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('toolsets chosen on the approval page narrow what the assistant sees and may call', async () => {
    const tokens = await tokensFor(t, co.writeKey, { toolsets: ['notes'] });
    const names = (await mcpCall(t, tokens.access_token, 'tools/list')).body.result.tools.map(
      (tool: { name: string }) => tool.name,
    );
    expect(names).toEqual(expect.arrayContaining(['add_note', 'get_guide']));
    expect(names).not.toContain('create_job');
    const refused = await mcpCall(t, tokens.access_token, 'tools/call', {
      name: 'create_job',
      arguments: { operation_id: opId() },
    });
    expect(problemOf(refused)).toMatchObject({ status: 404 });
    expect(JSON.parse(refused.body.result.content[0].text).detail).toContain('approved for this assistant');
  });

  it('a token works only on the resource it was issued for', async () => {
    const forMcp = await tokensFor(t, co.writeKey);
    const refused = await t.http
      .get('/api/v1/jobs')
      .set('Authorization', `Bearer ${forMcp.access_token}`)
      .expect(401);
    expect(refused.body.detail).toContain('issued for');
    expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    const forApi = await tokensFor(t, co.writeKey, { resource: `${t.url}/api/v1` });
    await t.http.get('/api/v1/jobs').set('Authorization', `Bearer ${forApi.access_token}`).expect(200);
    await mcpCall(t, forApi.access_token, 'tools/list').expect(401);
    // A resource this server does not serve: the browser is sent back with invalid_target.
    const clientId = await registerClient(t);
    const res = await t.http
      .get('/authorize')
      .query(authorizeQuery(t, { clientId, pkce: newPkce(), resource: 'https://elsewhere.example/mcp' }))
      .expect(302);
    expect(redirectParams(res.headers.location).get('error')).toBe('invalid_target');
  });
});

describe('the approval, and admin_create_sign_in_link', () => {
  it('sends the browser back with the code, the state and the issuer (RFC 9207); a denial with access_denied', async () => {
    const clientId = await registerClient(t);
    const request = await openApproval(t, { clientId, pkce: newPkce(), state: 'abc' });
    const approved = await answerApproval(t, { request, credential: co.writeKey }).expect(303);
    const params = redirectParams(approved.headers.location);
    expect(approved.headers.location!.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(params.get('code')).toMatch(/^jms_ac_/);
    expect(params.get('state')).toBe('abc');
    expect(params.get('iss')).toBe(`${t.url}/`);
    // Answered once: the same form again is an expired approval.
    await answerApproval(t, { request, credential: co.writeKey }).expect(400);

    const denied = await answerApproval(t, {
      request: await openApproval(t, { clientId, pkce: newPkce() }),
      decision: 'deny',
    }).expect(303);
    expect(redirectParams(denied.headers.location).get('error')).toBe('access_denied');
  });

  it('a wrong key shows the page again with 401 and grants nothing', async () => {
    const clientId = await registerClient(t);
    const request = await openApproval(t, { clientId, pkce: newPkce() });
    const res = await answerApproval(t, { request, credential: 'jms_notakey' }).expect(401);
    expect(res.text).toContain('unknown or has been revoked');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await t.db('oauth_grants').where({ client_id: clientId }).first()).toBeUndefined();
  });

  it('refuses an unregistered redirect_uri before sending the browser anywhere', async () => {
    const clientId = await registerClient(t);
    const res = await t.http
      .get('/authorize')
      .query(authorizeQuery(t, { clientId, pkce: newPkce(), redirectUri: 'https://attacker.example/cb' }))
      .expect(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.body.error).toBe('invalid_request');
  });

  it("a sign-in link an admin made lets a person approve without a key, once, as themselves with at most the link's scope", async () => {
    const tech = co.people[3];
    const link = (
      await admin(t.http.post(`/admin/v1/companies/${co.id}/sign-in-links`))
        .send({ person_id: tech.id, scope: 'write' })
        .expect(201)
    ).body;
    expect(link).toMatchObject({ person: { id: tech.id, name: tech.name }, scope: 'write' });
    const opened = await t.http.get(new URL(link.url).pathname + new URL(link.url).search).expect(200);
    expect(opened.text).toContain(`Signed in as ${tech.name}`);
    const cookie = (opened.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect(opened.headers['set-cookie']![0]).toMatch(/HttpOnly; SameSite=Lax/);
    const clientId = await registerClient(t);
    const pkce = newPkce();
    const pageHtml = (
      await t.http
        .get('/authorize')
        .query(authorizeQuery(t, { clientId, pkce }))
        .set('Cookie', cookie)
        .expect(200)
    ).text;
    expect(pageHtml).toContain(`Signed in as <b>${tech.name}</b>`);
    const request = /name="request" value="([^"]+)"/.exec(pageHtml)![1];
    const approved = await answerApproval(t, { request, scope: 'write' }, cookie).expect(303);
    const code = redirectParams(approved.headers.location).get('code')!;
    const tokens = (
      await exchange(t, {
        grant_type: 'authorization_code',
        code,
        code_verifier: pkce.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
      }).expect(200)
    ).body;
    const job = (
      await mcpCall(t, tokens.access_token, 'tools/call', {
        name: 'create_job',
        arguments: { operation_id: opId(), customer_name: 'Signed Sam' },
      })
    ).body.result.structuredContent;
    expect(job.created_by.name).toBe(tech.name);
    // Used: the link works no more.
    await t.http.get(new URL(link.url).pathname + new URL(link.url).search).expect(400);
    const again = await openApproval(t, { clientId, pkce: newPkce() }, cookie);
    await answerApproval(t, { request: again, scope: 'read' }, cookie).expect(401);
  });
});

describe('codes and tokens', () => {
  async function approvedCode(pkce = newPkce()) {
    const clientId = await registerClient(t);
    const request = await openApproval(t, { clientId, pkce });
    const approved = await answerApproval(t, { request, credential: co.writeKey }).expect(303);
    return { clientId, pkce, code: redirectParams(approved.headers.location).get('code')! };
  }

  it('refuses a PKCE verifier that does not match, a wrong redirect_uri and another client', async () => {
    const { clientId, pkce, code } = await approvedCode();
    const wrongVerifier = await exchange(t, {
      grant_type: 'authorization_code',
      code,
      code_verifier: newPkce().verifier,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
    }).expect(400);
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    const wrongRedirect = await exchange(t, {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.verifier,
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:7777/other',
    }).expect(400);
    expect(wrongRedirect.body.error).toBe('invalid_grant');
    const otherClient = await registerClient(t);
    expect(
      (
        await exchange(t, {
          grant_type: 'authorization_code',
          code,
          code_verifier: pkce.verifier,
          client_id: otherClient,
        }).expect(400)
      ).body.error,
    ).toBe('invalid_grant');
    // The code is still good for its own client with its own verifier.
    await exchange(t, {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.verifier,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
    }).expect(200);
  });

  it('an expired code is refused', async () => {
    const { clientId, pkce, code } = await approvedCode();
    await t.db('oauth_codes').update({ expires_at: new Date(Date.now() - 1000) });
    expect(
      (
        await exchange(t, {
          grant_type: 'authorization_code',
          code,
          code_verifier: pkce.verifier,
          client_id: clientId,
        }).expect(400)
      ).body.error_description,
    ).toContain('expired');
  });

  it('a code used twice is refused, and revokes the tokens it gave', async () => {
    const { clientId, pkce, code } = await approvedCode();
    const form = {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.verifier,
      client_id: clientId,
    };
    const tokens = (await exchange(t, form).expect(200)).body;
    await mcpCall(t, tokens.access_token, 'tools/list').expect(200);
    expect((await exchange(t, form).expect(400)).body.error).toBe('invalid_grant');
    await mcpCall(t, tokens.access_token, 'tools/list').expect(401);
    expect((await grantOf(clientId)).revoked_at).not.toBeNull();
    expect(
      (
        await exchange(t, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: clientId,
        }).expect(400)
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('refresh rotates: new tokens, the old refresh token used again revokes them all and the grant', async () => {
    const first = await tokensFor(t, co.writeKey);
    const second = (
      await exchange(t, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: first.clientId,
      }).expect(200)
    ).body;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await mcpCall(t, second.access_token, 'tools/list').expect(200);
    expect(
      (
        await exchange(t, {
          grant_type: 'refresh_token',
          refresh_token: first.refresh_token,
          client_id: first.clientId,
        }).expect(400)
      ).body.error,
    ).toBe('invalid_grant');
    await mcpCall(t, second.access_token, 'tools/list').expect(401);
    await exchange(t, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token,
      client_id: first.clientId,
    }).expect(400);
    const grant = await grantOf(first.clientId);
    expect(grant.revoked_at).not.toBeNull();
    expect(grant.ended_by_key).toBe(false);
  });

  it('an expired access token is 401 invalid_token, and refresh gives a working one', async () => {
    const tokens = await tokensFor(t, co.writeKey);
    await t
      .db('oauth_tokens')
      .where({ kind: 'access' })
      .update({ expires_at: new Date(Date.now() - 1000) });
    await new Promise((resolve) => setTimeout(resolve, 5_100)); // past the node's memory of the token
    const expired = await mcpCall(t, tokens.access_token, 'tools/list').expect(401);
    expect(expired.body.detail).toContain('expired');
    const renewed = (
      await exchange(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: tokens.clientId,
      }).expect(200)
    ).body;
    await mcpCall(t, renewed.access_token, 'tools/list').expect(200);
  });

  it('the client may revoke its own token (RFC 7009)', async () => {
    const tokens = await tokensFor(t, co.writeKey);
    await t.http
      .post('/revoke')
      .type('form')
      .send(new URLSearchParams({ token: tokens.access_token, client_id: tokens.clientId }).toString())
      .expect(200);
    await mcpCall(t, tokens.access_token, 'tools/list').expect(401);
  });
});

describe('admin_list_assistant_grants, admin_revoke_assistant_grant: revocation', () => {
  it('an admin lists the grants and revokes one: its tokens stop at once', async () => {
    const tokens = await tokensFor(t, co.writeKey, { clientName: 'Revocable Bot' });
    await mcpCall(t, tokens.access_token, 'tools/list').expect(200);
    const list = (await admin(t.http.get(`/admin/v1/companies/${co.id}/assistant-grants`)).expect(200)).body
      .data as {
      id: string;
      client: { name: string };
      revoked_at: string | null;
      last_used_at: string | null;
      approved_with: string;
    }[];
    const grant = list.find((g) => g.client.name === 'Revocable Bot')!;
    expect(grant).toMatchObject({
      revoked_at: null,
      approved_with: 'api_key',
      person: { id: co.people[0].id },
    });
    expect(grant.last_used_at).not.toBeNull();
    await admin(t.http.delete(`/admin/v1/companies/${other.id}/assistant-grants/${grant.id}`)).expect(404);
    await admin(t.http.delete(`/admin/v1/companies/${co.id}/assistant-grants/${grant.id}`)).expect(204);
    await mcpCall(t, tokens.access_token, 'tools/list').expect(401);
    await exchange(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: tokens.clientId,
    }).expect(400);
    const after = (
      await admin(t.http.get(`/admin/v1/companies/${co.id}/assistant-grants`)).expect(200)
    ).body.data.find((g: { id: string }) => g.id === grant.id);
    expect(after.revoked_at).not.toBeNull();
  });

  it('revoking or rotating the key a grant was approved with ends the grant', async () => {
    const key = (
      await admin(t.http.post(`/admin/v1/companies/${co.id}/keys`))
        .send({ person_id: co.people[1].id, scope: 'write' })
        .expect(201)
    ).body;
    const tokens = await tokensFor(t, key.key);
    await mcpCall(t, tokens.access_token, 'tools/list').expect(200);
    await admin(t.http.post(`/admin/v1/keys/${key.id}/rotate`)).expect(200);
    await mcpCall(t, tokens.access_token, 'tools/list').expect(401);
    const listed = (
      await admin(t.http.get(`/admin/v1/companies/${co.id}/assistant-grants`)).expect(200)
    ).body.data.filter((g: { person: { id: string } }) => g.person.id === co.people[1].id);
    expect(listed[0].ended_by_key).toBe(true);

    const key2 = (
      await admin(t.http.post(`/admin/v1/companies/${co.id}/keys`))
        .send({ person_id: co.people[1].id, scope: 'write' })
        .expect(201)
    ).body;
    const tokens2 = await tokensFor(t, key2.key);
    await admin(t.http.delete(`/admin/v1/keys/${key2.id}`)).expect(204);
    await mcpCall(t, tokens2.access_token, 'tools/list').expect(401);
  });

  it.each(['rotated', 'revoked'])(
    'once the key that approved a grant is %s, its refresh token is refused (invalid_grant) and the grant is listed as revoked',
    async (change) => {
      const key = (
        await admin(t.http.post(`/admin/v1/companies/${co.id}/keys`))
          .send({ person_id: co.people[2].id, scope: 'write' })
          .expect(201)
      ).body;
      const ended = await tokensFor(t, key.key);
      const untouched = await tokensFor(t, co.writeKey);
      if (change === 'rotated') await admin(t.http.post(`/admin/v1/keys/${key.id}/rotate`)).expect(200);
      else await admin(t.http.delete(`/admin/v1/keys/${key.id}`)).expect(204);

      const refused = await refreshWith(ended).expect(400);
      expect(refused.body.error).toBe('invalid_grant');
      await mcpCall(t, ended.access_token, 'tools/list').expect(401);
      const grant = await grantOf(ended.clientId);
      expect(grant.revoked_at).not.toBeNull();
      expect(grant.ended_by_key).toBe(true);
      // A grant approved with another key of the company goes on.
      const renewed = (await refreshWith(untouched).expect(200)).body;
      await mcpCall(t, renewed.access_token, 'tools/list').expect(200);
      expect((await grantOf(untouched.clientId)).revoked_at).toBeNull();
    },
  );

  it('API keys keep working as before, over HTTP and MCP', async () => {
    await as(t, co.readKey).get('/api/v1/jobs').expect(200);
    await mcpCall(t, co.writeKey, 'tools/list').expect(200);
  });
});

describe('expired codes, tokens, approvals and sign-in links', () => {
  const hoursAgo = (hours: number) => t.db.raw('now() - make_interval(hours => ?)', [hours]);

  it('are purged by the hourly sweep once expired for more than a day; a purged token is refused as before', async () => {
    const old = await tokensFor(t, co.writeKey, { clientName: 'Long Gone Bot' });
    const recent = await tokensFor(t, co.writeKey, { clientName: 'Just Expired Bot' });
    const oldGrant = await grantOf(old.clientId);
    const recentGrant = await grantOf(recent.clientId);
    for (const [grant, hours] of [
      [oldGrant, 25],
      [recentGrant, 23],
    ] as const) {
      await t
        .db('oauth_tokens')
        .where({ grant_id: grant.id })
        .update({ expires_at: hoursAgo(hours) });
      await t
        .db('oauth_codes')
        .where({ grant_id: grant.id })
        .update({ expires_at: hoursAgo(hours) });
    }
    const unanswered = await openApproval(t, { clientId: old.clientId, pkce: newPkce() });
    await t
      .db('oauth_requests')
      .where({ id: unanswered })
      .update({ expires_at: hoursAgo(25) });
    const link = (
      await admin(t.http.post(`/admin/v1/companies/${co.id}/sign-in-links`))
        .send({ person_id: co.people[1].id, scope: 'read' })
        .expect(201)
    ).body;
    const linkCode = new URL(link.url).searchParams.get('code')!;
    await t
      .db('oauth_sign_ins')
      .where({ code_hash: hashSecret(linkCode) })
      .update({ expires_at: hoursAgo(25) });

    // Before the sweep: refused because expired.
    const expired = await mcpCall(t, old.access_token, 'tools/list').expect(401);
    expect(expired.headers['www-authenticate']).toContain('error="invalid_token"');
    expect((await refreshWith(old).expect(400)).body.error).toBe('invalid_grant');

    expect(await purgeExpiredOAuthRows(t.db)).toBeGreaterThanOrEqual(5);
    const tokensLeft = await t
      .db('oauth_tokens')
      .whereIn('grant_id', [oldGrant.id, recentGrant.id])
      .pluck('grant_id');
    expect(new Set(tokensLeft)).toEqual(new Set([recentGrant.id]));
    const codesLeft = await t
      .db('oauth_codes')
      .whereIn('grant_id', [oldGrant.id, recentGrant.id])
      .pluck('grant_id');
    expect(codesLeft).toEqual([recentGrant.id]);
    expect(await t.db('oauth_requests').where({ id: unanswered }).first()).toBeUndefined();
    expect(
      await t
        .db('oauth_sign_ins')
        .where({ code_hash: hashSecret(linkCode) })
        .first(),
    ).toBeUndefined();
    // The grant itself stays, for the admin's list.
    expect((await grantOf(old.clientId)).id).toBe(oldGrant.id);

    // After it: refused as before, at the same places with the same errors.
    const purged = await mcpCall(t, old.access_token, 'tools/list').expect(401);
    expect(purged.headers['www-authenticate']).toContain('error="invalid_token"');
    expect((await refreshWith(old).expect(400)).body.error).toBe('invalid_grant');
    await t.http.get(`/oauth/sign-in?code=${linkCode}`).expect(400);
    await answerApproval(t, { request: unanswered, credential: co.writeKey }).expect(400);
    // The younger ones are still refused as expired, not as unknown.
    expect((await mcpCall(t, recent.access_token, 'tools/list').expect(401)).body.detail).toContain(
      'expired',
    );
  });
});
