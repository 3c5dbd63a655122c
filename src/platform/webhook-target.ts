/**
 * Where chat messages may go. A webhook on a private, loopback, link-local or other non-public
 * address could reach inside our own network (or a cloud metadata service), so such targets are
 * refused unless the operator allows them (`CHAT_ALLOW_PRIVATE_TARGETS=true`, used by tests with
 * a local receiver). The check runs when the webhook is connected and again on every delivery,
 * on the address actually connected to: a literal IP is checked as written (Node calls no lookup
 * for it), a name's every address is checked and the connection pinned to those addresses, and
 * the socket's remote address is checked once more before the request is sent. Redirects are not
 * followed: a 3xx answer is a failed delivery, so a public target cannot bounce us inward.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from './errors';

/** A target the policy refuses: delivering to it is never retried. */
export class ForbiddenTarget extends Error {}

const DESCRIPTIONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  linkLocal: 'a link-local address (where cloud metadata services answer)',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
  deprecatedSiteLocal: 'a site-local address',
  rfc6052: 'a NAT64 address (it reaches an IPv4 address)',
  rfc6145: 'an IPv4-translated address',
  '6to4': 'a 6to4 address (it reaches an IPv4 address)',
  teredo: 'a Teredo address (it reaches an IPv4 address)',
};

// Global unicast IPv6. Everything else (::/96 IPv4-compatible such as ::7f00:1, NAT64 64:ff9b::,
// site-local) is refused, and the special ranges inside it by ipaddr.js's range() below.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why an address is not a public internet address ("a loopback address"), or null when it is one. */
export function nonPublicReason(address: string): string | null {
  // A zone id (fe80::1%eth0) scopes an address to a local link.
  if (address.includes('%')) return 'an address with a zone id (a local link)';
  // net.isIP takes only the canonical forms that DNS answers, sockets and WHATWG URLs give.
  if (!net.isIP(address)) return 'not an IP address';
  // ::ffff:127.0.0.1 reaches 127.0.0.1, so it is judged as that IPv4 address.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast' && (parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6))) return null;
  if (range === 'unicast') return 'not a global unicast address';
  const description = DESCRIPTIONS[range] ?? `a special-purpose address (${range})`;
  return net.isIPv6(address) && parsed.kind() === 'ipv4'
    ? `${description}, IPv4 ${parsed.toString()}`
    : description;
}

/** Parses a webhook URL; what can never be posted to is a ForbiddenTarget. */
function parseWebhookUrl(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    // Among others http://[::1%25lo]/: WHATWG URL takes no IPv6 zone id.
    throw new ForbiddenTarget('the URL cannot be parsed (an IPv6 zone id is not supported)');
  }
  if (!['http:', 'https:'].includes(target.protocol))
    throw new ForbiddenTarget('the webhook must be an http or https URL');
  return target;
}

/**
 * The address to connect to. WHATWG URL has already written 2130706433, 0x7f.1, 017700000001
 * and 127.1 as 127.0.0.1, and [::ffff:127.0.0.1] as [::ffff:7f00:1], so a literal is checked in
 * its canonical form. A DNS failure is thrown as it is (worth a retry).
 */
async function resolveTarget(target: URL, allowPrivate: boolean): Promise<LookupAddress[]> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(host);
  if (family) {
    const reason = allowPrivate ? null : nonPublicReason(host);
    if (reason) throw new ForbiddenTarget(`${host} is ${reason}`);
    return [{ address: host, family }];
  }
  const addresses = await dns.lookup(host, { all: true, verbatim: true });
  for (const { address } of addresses) {
    const reason = allowPrivate ? null : nonPublicReason(address);
    if (reason) throw new ForbiddenTarget(`${host} resolves to ${address}, ${reason}`);
  }
  return addresses;
}

/** Checks a webhook URL before it is saved: http(s), and a public address unless allowed. */
export async function checkWebhookTarget(url: string, allowPrivate: boolean): Promise<void> {
  try {
    await resolveTarget(parseWebhookUrl(url), allowPrivate);
  } catch (error) {
    const reason =
      error instanceof ForbiddenTarget ? error.message : `${new URL(url).hostname} cannot be resolved`;
    throw new ApiError(422, 'webhook_not_allowed', `The webhook target is not allowed: ${reason}.`);
  }
}

/** A lookup that answers with the addresses already checked, so a second DNS answer cannot differ. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all)
      return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  };
}

/**
 * POSTs JSON (a text is sent as it is: a signature covers its exact bytes), with `headers`
 * besides; resolves with the status code. The whole exchange has a deadline (not just an idle
 * timeout), so that a receiver that trickles bytes cannot hold a delivery past its lease.
 */
export async function postJson(
  url: string,
  body: unknown,
  options: TargetOptions & { headers?: Record<string, string> },
): Promise<number> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const headers = {
    ...options.headers,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(payload)),
  };
  return (await guardedRequest(url, 'POST', headers, payload, { ...options, maxBytes: 0 })).status;
}

/**
 * GETs a JSON document from an outside address under the same rules (an OAuth client's metadata
 * document): at most `maxBytes`, within the deadline, no redirect followed. `ca` adds a trusted
 * certificate authority (tests serve their documents over https with one of their own).
 */
export async function getJson(
  url: string,
  options: TargetOptions & { maxBytes: number; ca?: string },
): Promise<{ status: number; body: unknown }> {
  const { status, text } = await guardedRequest(url, 'GET', { Accept: 'application/json' }, null, options);
  if (status !== 200) return { status, body: null };
  try {
    return { status, body: JSON.parse(text) };
  } catch {
    throw new Error('the document is not JSON');
  }
}

interface TargetOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Cuts the exchange short (the node is stopping): the request is destroyed and the call rejects. */
  signal?: AbortSignal;
}

async function guardedRequest(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  payload: string | null,
  options: TargetOptions & { maxBytes: number; ca?: string },
): Promise<{ status: number; text: string }> {
  const target = parseWebhookUrl(url);
  const addresses = await resolveTarget(target, options.allowPrivate);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method,
        headers,
        lookup: pinnedLookup(addresses),
        // A new connection each time, so that each one passes the check on connect below.
        agent: false,
        ...(options.ca ? { ca: options.ca } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            if (options.maxBytes > 0)
              request.destroy(new Error(`the answer is over ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    const deadline = setTimeout(
      () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    request.on('close', () => clearTimeout(deadline));
    // A second guard behind the pinned addresses: 'socket' comes before the request is flushed,
    // so this runs ahead of the write queued for 'connect' and a refused peer gets no request
    // (over https the TLS hello has gone out by then, but no header or body).
    request.on('socket', (socket) => {
      socket.once('connect', () => {
        const reason = options.allowPrivate ? null : nonPublicReason(socket.remoteAddress ?? '');
        if (reason) request.destroy(new ForbiddenTarget(`connected to ${socket.remoteAddress}, ${reason}`));
      });
    });
    request.on('error', reject);
    request.end(payload ?? undefined);
  });
}
