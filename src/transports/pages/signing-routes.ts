/**
 * The key-less routes of a signer's link (request_signature): the signing page, its data as JSON,
 * Sign, Decline and the signed copy. They carry the upload page's headers (CSP with nonces, no
 * framing, no referrer) and refuse a POST from another site's page. A link that is altered (403),
 * expired or closed (410) answers a page that says so to a browser, and a problem to a program.
 * Sign and Decline are charged to the rate limit of the key that made the link.
 *
 * Also `verify_form`'s route: its body is a PDF, not JSON, so it is read here and handed to the
 * pipeline like any tool call.
 */
import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ApiError } from '../../platform/errors';
import { checkAnswer, checkHttpRequest } from '../../platform/validation';
import type { RateLimiter } from '../../platform/rate-limit';
import type { Deps } from '../../domain/services';
import {
  assertOpen,
  declineForm,
  recordOpened,
  signedCopyKey,
  signerOfLink,
  signForm,
  signingView,
  type SignerAccess,
  type Visit,
} from '../../domain/forms/signing';
import { addressOf, callerOf, charge } from '../shared/credentials';
import { send } from '../shared/answers';
import { linkErrors } from '../files/media-routes';
import { sendStoredFile } from '../files/send-stored-file';
import { ERROR_PAGE_HEADERS, pageHeaders, refuseCrossSite } from './page-security';
import { errorPage } from './upload-page';
import { signingPage } from './signing-page';

/**
 * A signature of 1 MB travels as 1.4 MB of base64: the body may hold more, so that a signature a
 * little too large gets its own refusal (413 signature_too_large). Only a valid link's body is read.
 */
const SIGN_BODY_LIMIT = '4mb';
/** verify_form takes a PDF as large as a document may be. */
const VERIFY_BODY_LIMIT = '50mb';
const USER_AGENT_CHARS = 500;

export function signingRoutes(deps: Deps, limiter: RateLimiter): Router {
  const router = express.Router();
  const json = express.json({ limit: SIGN_BODY_LIMIT });
  const accessOf = (req: Request) =>
    signerOfLink(deps, String(req.params.form_id), req.query as Record<string, unknown>);

  // A HEAD (a link preview's) shows nothing to a person: it is not an opening.
  const opened = (req: Request, access: SignerAccess) =>
    req.method === 'GET' ? recordOpened(deps, access, visitOf(req)) : access;

  router.get('/sign/:form_id', async (req: Request, res: Response) => {
    const access = await accessOf(req);
    const closed = closedPage(access);
    if (closed) return void res.status(410).type('html').set(ERROR_PAGE_HEADERS).send(closed);
    const view = await signingView(deps, await opened(req, access));
    const nonce = randomBytes(16).toString('base64');
    res.type('html').set(pageHeaders(nonce)).send(signingPage(view, nonce));
  });

  router.get('/sign/:form_id/view', async (req: Request, res: Response) => {
    const access = await accessOf(req);
    assertOpen(access.form, access.signer, access.holder.caller.companyName);
    const view = await signingView(deps, await opened(req, access));
    res.set('Cache-Control', 'no-store').json(view);
  });

  // The link is checked (and charged to its key) before the body is read: without a valid link
  // nothing is parsed.
  const linkFirst = async (req: Request, res: Response, next: NextFunction) => {
    const access = await accessOf(req);
    await charge(res, limiter, 'work', access.holder.caller.keyId, 1);
    res.locals.signer = access;
    next();
  };
  const accessChecked = (res: Response) => res.locals.signer as SignerAccess;

  router.post(
    '/sign/:form_id/sign',
    refuseCrossSite,
    linkFirst,
    json,
    async (req: Request, res: Response) => {
      const answer = await signForm(deps, accessChecked(res), req.body, visitOf(req));
      send(res.set('Cache-Control', 'no-store'), 201, answer);
    },
  );

  router.post(
    '/sign/:form_id/decline',
    refuseCrossSite,
    linkFirst,
    json,
    async (req: Request, res: Response) => {
      send(res.set('Cache-Control', 'no-store'), 200, await declineForm(deps, accessChecked(res), req.body));
    },
  );

  // The signer's copy stays theirs after signing: this link keeps opening it.
  router.get('/sign/:form_id/copy', async (req: Request, res: Response) => {
    const access = await accessOf(req);
    await sendStoredFile(req, res, deps.media.files, signedCopyKey(access), {
      'Content-Type': 'application/pdf',
      'Content-Disposition': `attachment; filename="${access.form.id}-signed.pdf"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      ETag: `"${access.form.signed_pdf_sha256?.slice(0, 32)}"`,
    });
  });

  router.use(linkErrors);
  return router;
}

/**
 * The page of a link that can no longer sign (410 form_closed), or null while it can: a signer
 * who signed a form everyone has signed gets their copy from it.
 */
function closedPage(access: SignerAccess): string | null {
  try {
    assertOpen(access.form, access.signer, access.holder.caller.companyName);
    return null;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const copy =
      access.signer.state === 'signed' && access.form.signed_pdf_sha256
        ? { href: `/sign/${access.form.id}/copy?${access.query}`, text: 'Download your signed copy (PDF)' }
        : undefined;
    return errorPage(error, copy);
  }
}

/** Where a signer's request came from, as the audit page prints it. */
function visitOf(req: Request): Visit {
  return {
    ip: addressOf(req),
    userAgent: String(req.headers['user-agent'] ?? '').slice(0, USER_AGENT_CHARS),
  };
}

/**
 * `verify_form` (a route under /api/v1, after the key check): the PDF is the body, read only once
 * its type and the path are found right.
 */
export function addFormVerifyRoute(router: Router, deps: Deps): void {
  const checked = (req: Request, res: Response, next: NextFunction) => {
    if (!/^application\/pdf\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
      throw new ApiError(
        415,
        'unsupported_media_type',
        'Send the PDF as the body with Content-Type: application/pdf.',
      );
    const parts = { path: { form_id: String(req.params.form_id) }, query: { ...req.query }, body: undefined };
    checkHttpRequest('verify_form', parts);
    res.locals.formId = parts.path.form_id;
    next();
  };
  const pdf = express.raw({ type: 'application/pdf', limit: VERIFY_BODY_LIMIT });
  router.post('/api/v1/forms/:form_id/verify', checked, pdf, async (req: Request, res: Response) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (body.length === 0)
      throw new ApiError(400, 'invalid_request', 'Send the PDF to check as the body.', {
        errors: [{ path: '/body', message: 'must be a PDF' }],
      });
    const answer = await deps.pipeline.run('verify_form', callerOf(res), {
      path: { form_id: res.locals.formId as string },
      query: {},
      body: { pdf: body },
    });
    if (deps.config.validateResponses) checkAnswer('verify_form', answer.status, answer.body);
    send(res, answer.status, answer.body);
  });
}
