/**
 * An assistant's access token for the bench, obtained as a client would: dynamic registration,
 * the approval page's form answered with the bench's key, the code exchanged with PKCE.
 */
import { createHash, randomBytes } from 'node:crypto';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

async function form(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(url).origin },
    body: new URLSearchParams(fields).toString(),
  });
}

export async function assistantToken(base: string, key: string): Promise<string> {
  const registered = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Bench Assistant',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'read write',
    resource: `${base}/mcp`,
  });
  const page = await (await fetch(`${base}/authorize?${query}`)).text();
  const request = /name="request" value="([^"]+)"/.exec(page)?.[1];
  if (!request) throw new Error('the approval page has no form');
  const approved = await form(`${base}/oauth/approve`, {
    request,
    credential: key,
    scope: 'write',
    decision: 'approve',
  });
  const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code');
  if (!code) throw new Error(`the approval answered ${approved.status} without a code`);
  const tokens = await form(`${base}/token`, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    resource: `${base}/mcp`,
  });
  if (tokens.status !== 200)
    throw new Error(`the token endpoint answered ${tokens.status}: ${await tokens.text()}`);
  return ((await tokens.json()) as { access_token: string }).access_token;
}
