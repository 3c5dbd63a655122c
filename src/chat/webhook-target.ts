/**
 * Where chat messages may go. A webhook on a private, loopback or link-local address could reach
 * inside our own network, so such targets are refused unless the operator allows them
 * (`CHAT_ALLOW_PRIVATE_TARGETS=true`, used by tests with a local receiver). The check runs when
 * the webhook is connected and again on every delivery, on the address actually connected to.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../platform/errors';

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'unicast';
}

export class ForbiddenTarget extends Error {}

/** A DNS lookup that refuses private addresses, so the check holds for the connection made. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => !allowPrivate && !isPublicAddress(a.address));
      if (refused) return callback(new ForbiddenTarget(`${hostname} resolves to ${refused.address}, a private address`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Checks a webhook URL before it is saved: http(s), and a public address unless allowed. */
export async function checkWebhookTarget(url: string, allowPrivate: boolean): Promise<void> {
  const target = new URL(url);
  if (!['http:', 'https:'].includes(target.protocol)) {
    throw new ApiError(422, 'webhook_not_allowed', 'The webhook must be an http or https URL.');
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  await new Promise<void>((resolve, reject) => {
    guardedLookup(allowPrivate)(host, { all: true }, (error) => {
      if (!error) return resolve();
      const reason = error instanceof ForbiddenTarget ? error.message : `${host} cannot be resolved`;
      reject(new ApiError(422, 'webhook_not_allowed', `The webhook target is not allowed: ${reason}.`));
    });
  });
}

/** POSTs JSON; resolves with the status code. Times out rather than waiting forever. */
export function postJson(url: string, body: unknown, options: { allowPrivate: boolean; timeoutMs: number }): Promise<number> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
        lookup: guardedLookup(options.allowPrivate),
        timeout: options.timeoutMs,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end(payload);
  });
}
