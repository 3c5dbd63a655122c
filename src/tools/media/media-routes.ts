/**
 * The routes of files that are not JSON tools: the multipart photo upload of the API, the signed
 * file links, and the upload page with its own upload route. They sit before the spec validator
 * (which would read a multipart body whole); each checks its input itself.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { callerOf, findCallerOfKeyId } from '../../platform/auth';
import { ApiError, notFound } from '../../platform/errors';
import { toApiError } from '../../platform/http-errors';
import type { Deps } from '../../platform/pipeline';
import type { RateLimiter } from '../../platform/rate-limit';
import { send } from '../../platform/routes';
import { intakePhotos } from './photo-intake';
import { jobRooms, storageKey } from './photo-records';
import { sendStoredFile } from './send-stored-file';
import { errorPage, uploadLinkFacts, uploadPage } from './upload-page';

/** Routes under /api/v1 that run after the key check. */
export function addUploadRoute(router: Router, deps: Deps): void {
  router.post('/api/v1/jobs/:job_id/photos', async (req: Request, res: Response) => {
    const answer = await intakePhotos(deps, req, { caller: callerOf(res), jobRef: req.params.job_id as string, via: 'api' });
    send(res, answer.status, answer.body, answer.replayed);
  });
}

/** The key-less routes: signed file links and the upload page. */
export function linkRoutes(deps: Deps, limiter: RateLimiter): Router {
  const router = express.Router();
  router.get('/files/photos/:photo_id/:variant', async (req: Request, res: Response) => {
    const { photo_id: photoId, variant } = req.params as { photo_id: string; variant: string };
    if (variant !== 'web' && variant !== 'thumbnail') throw notFound('file');
    const companyId = String(req.query.c ?? '');
    const expires = Number(req.query.e);
    await deps.media.links.check({ purpose: 'photo', companyId, object: `${photoId}/${variant}`, expires }, req.query.s);
    const photo = await deps.db('photos').where({ id: photoId, company_id: companyId }).first('sha256');
    if (!photo) throw new ApiError(404, 'not_found', 'This photo is no longer on its job.');
    const maxAge = Math.max(0, expires - Math.floor(Date.now() / 1000));
    await sendStoredFile(req, res, deps.media.files, storageKey(companyId, photo.sha256, variant), {
      'Content-Type': 'image/jpeg',
      'Cache-Control': `private, max-age=${maxAge}`,
      ETag: `"${photo.sha256.slice(0, 32)}-${variant}"`,
      'X-Content-Type-Options': 'nosniff',
    });
  });

  router.get('/upload/:job_id', async (req: Request, res: Response) => {
    const { job } = await uploaderOfLink(deps, req);
    const page = uploadPage({ ...job, rooms: await jobRooms(deps.db, job.id) });
    res
      .type('html')
      .set({ 'Cache-Control': 'no-store', 'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${page.nonce}'; style-src 'nonce-${page.nonce}'; connect-src 'self'; form-action 'self'` })
      .send(page.html);
  });
  router.post('/upload/:job_id/photos', async (req: Request, res: Response) => {
    const { caller } = await uploaderOfLink(deps, req);
    await limiter.charge(res, 'work', caller.keyId, 1);
    const answer = await intakePhotos(deps, req, { caller, jobRef: req.params.job_id as string, via: 'upload_page' });
    send(res, answer.status, answer.body, answer.replayed);
  });
  router.use(linkErrors);
  return router;
}

/** The person a valid upload link acts for, and its job; a revoked key ends its links. */
async function uploaderOfLink(deps: Deps, req: Request) {
  const facts = uploadLinkFacts(req);
  await deps.media.links.check(facts, req.query.s);
  const caller = await findCallerOfKeyId(deps.db, String(req.query.k));
  if (!caller || caller.companyId !== facts.companyId) {
    throw new ApiError(403, 'link_invalid', 'This link no longer works: the key that made it was revoked. Ask for a new link.');
  }
  const job = await deps.db('jobs').where({ id: facts.object, company_id: caller.companyId }).first('id', 'job_number', 'title');
  if (!job) throw notFound('job');
  return { caller, job: { ...job, room: facts.room } };
}

/** People who open a link get a page; programs get a problem. */
function linkErrors(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const problem = toApiError(error);
  if (problem.status >= 500 || req.accepts(['json', 'html']) !== 'html') return next(error);
  for (const [name, value] of Object.entries(problem.extra.headers ?? {})) res.setHeader(name, value);
  res.status(problem.status).type('html').send(errorPage(problem));
}
