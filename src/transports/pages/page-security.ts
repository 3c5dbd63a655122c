/**
 * What the pages opened from a link (upload, packet download) and the approval page carry, and
 * what their POSTs accept. A link's signature is in its URL, so the pages send no referrer; another site may not
 * frame them (a framed Upload or Download button can be clicked by a trick); and a POST made by
 * another site's page is refused. Programs send no `Origin` and are not affected.
 */
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../platform/errors';
import { hostKey, originKey } from '../../platform/hosts';

/** Text made safe to place in HTML, in an element or a quoted attribute. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const FRAMING_AND_REFERRER = {
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/**
 * Headers of a page whose scripts and styles carry `nonce`. `formTargets`: origins a form's answer
 * may send the browser on to (the approval page's, back to the assistant), besides this service.
 * A page with a form keeps its referrer within the site: under `no-referrer` a browser sends
 * `Origin: null` with a form's POST, which refuseCrossSite must refuse.
 */
export function pageHeaders(nonce: string, formTargets: string[] = []): Record<string, string> {
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    ...FRAMING_AND_REFERRER,
    ...(formTargets.length ? { 'Referrer-Policy': 'same-origin' } : {}),
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src blob:; form-action ${formAction}; frame-ancestors 'none'`,
  };
}

/** Headers of the error pages: one inline style, no script. */
export const ERROR_PAGE_HEADERS = {
  ...FRAMING_AND_REFERRER,
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
};

/**
 * Refuses (403 `forbidden_origin`) a POST that a browser made from another site's page: its
 * `Origin` names another host (or is `null`, as from a sandboxed frame or a data: URL), or its
 * `Sec-Fetch-Site` says cross-site.
 */
export function refuseCrossSite(req: Request, _res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  const crossSite =
    req.headers['sec-fetch-site'] === 'cross-site' ||
    (origin !== undefined && !isOwnOrigin(origin, req.headers.host ?? ''));
  if (crossSite)
    throw new ApiError(
      403,
      'forbidden_origin',
      'This page accepts uploads and downloads only from itself: the request came from another site.',
    );
  next();
}

/** Whether `origin` names the host the request was sent to (compared as hosts.ts writes them). */
function isOwnOrigin(origin: string, host: string): boolean {
  const key = originKey(origin);
  return key !== null && hostKey(new URL(key).host) === hostKey(host);
}
