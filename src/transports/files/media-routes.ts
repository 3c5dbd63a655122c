/**
 * The routes of files that are not JSON tools: the multipart uploads of the API (photos, videos,
 * documents), the signed file links, and the upload page with its own upload routes. They sit
 * before the spec validator (which would read a multipart body whole); each checks its input
 * itself.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ApiError, notFound } from '../../platform/errors';
import { holderOfLink, personLinkOf } from '../../platform/person-links';
import { toApiError } from '../shared/problems';
import type { RateLimiter } from '../../platform/rate-limit';
import type { UploadShares } from '../../platform/fair-share';
import { send } from '../shared/answers';
import { documentKind } from '../../domain/documents/document-intake';
import { DOCUMENT_FORMATS, type DocumentFormat } from '../../domain/documents/document-kinds';
import { intakeFiles } from './file-intake';
import { LINKED, storedVariant, type Collection } from '../../domain/media/file-links';
import { photoKind } from '../../domain/media/photo-intake';
import { jobRooms, joinStoredFile } from '../../domain/media/photo-records';
import { videoContentType, videoKind } from '../../domain/media/video-intake';
import { sendStoredFile } from './send-stored-file';
import { errorPage, uploadPage } from '../pages/upload-page';
import { ERROR_PAGE_HEADERS, pageHeaders, refuseCrossSite } from '../pages/page-security';
import type { Deps } from '../../domain/services';
import type { FileKind } from '../../domain/media/file-kind';
import { callerOf, charge } from '../shared/credentials';
import { storageKey, type FileVariant } from '../../domain/media/storage-keys';
import { UPLOAD_LINK_ADDED, UPLOAD_LINK_PARAMS } from '../../domain/media/upload-links';

/** The upload of each collection, by the last segment of its path. */
const UPLOADS: Record<Collection, FileKind> = {
  photos: photoKind,
  videos: videoKind,
  documents: documentKind,
};

/** Routes under /api/v1 that run after the key check. */
export function addUploadRoutes(router: Router, deps: Deps, uploads: UploadShares): void {
  for (const [collection, kind] of Object.entries(UPLOADS)) {
    router.post(`/api/v1/jobs/:job_id/${collection}`, async (req: Request, res: Response) => {
      const caller = callerOf(res);
      const answer = await intakeFiles(
        deps,
        req,
        { caller, jobRef: req.params.job_id as string, via: 'api' },
        kind,
        uploads,
      );
      send(res, answer.status, answer.body, answer.replayed);
    });
  }
}

/** The key-less routes: signed file links and the upload page. */
export function linkRoutes(deps: Deps, limiter: RateLimiter, uploads: UploadShares): Router {
  const router = express.Router();
  router.get('/files/:collection/:id/:variant', async (req: Request, res: Response) => {
    const { collection, id, variant } = req.params as { collection: string; id: string; variant: string };
    const linked = storedVariant(collection, variant);
    if (!linked) throw notFound('file');
    const companyId = String(req.query.c ?? '');
    const expires = Number(req.query.e);
    await deps.media.links.check(
      { purpose: LINKED[linked.collection].purpose, companyId, object: `${id}/${variant}`, expires },
      req.query.s,
    );
    const record = await joinStoredFile(deps.db(`${linked.collection} as r`), 'r')
      .where({ 'r.id': id, 'r.company_id': companyId })
      .first('r.sha256', 'r.name', 'f.format');
    if (!record)
      throw new ApiError(404, 'not_found', `This ${linked.collection.slice(0, -1)} is no longer on its job.`);
    const maxAge = Math.max(0, expires - Math.floor(Date.now() / 1000));
    await sendStoredFile(req, res, deps.media.files, storageKey(companyId, record.sha256, linked.stored), {
      ...fileHeaders(linked.collection, linked.stored, record),
      'Cache-Control': `private, max-age=${maxAge}`,
      ETag: `"${record.sha256.slice(0, 32)}-${linked.stored}"`,
      'X-Content-Type-Options': 'nosniff',
    });
  });

  router.get('/upload/:job_id', async (req: Request, res: Response) => {
    const { job } = await uploaderOfLink(deps, req);
    const page = uploadPage({ ...job, rooms: await jobRooms(deps.db, job.id) });
    res.type('html').set(pageHeaders(page.nonce)).send(page.html);
  });
  for (const [collection, kind] of Object.entries(UPLOADS)) {
    router.post(`/upload/:job_id/${collection}`, refuseCrossSite, async (req: Request, res: Response) => {
      const { caller, teammate } = await uploaderOfLink(deps, req);
      await charge(res, limiter, 'work', caller.keyId, 1);
      const answer = await intakeFiles(
        deps,
        req,
        { caller, jobRef: req.params.job_id as string, via: 'upload_page', by: teammate },
        kind,
        uploads,
      );
      send(res, answer.status, answer.body, answer.replayed);
    });
  }
  router.use(linkErrors);
  return router;
}

/** The person a valid upload link acts for, and its job, with the room the link preselects. */
async function uploaderOfLink(deps: Deps, req: Request) {
  const link = personLinkOf(req.query, String(req.params.job_id), 'upload', UPLOAD_LINK_PARAMS);
  const { caller, job } = await holderOfLink(
    deps.db,
    deps.media.links,
    link,
    UPLOAD_LINK_PARAMS,
    req.query.s,
    UPLOAD_LINK_ADDED,
  );
  return {
    caller,
    teammate: link.params.b === '' ? undefined : link.params.b,
    job: { ...job, room: link.params.r === '' ? null : link.params.r },
  };
}

/** People who open a link get a page; programs get a problem. */
export function linkErrors(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const problem = toApiError(error);
  if (problem.status >= 500 || req.accepts(['json', 'html']) !== 'html') {
    next(error);
    return;
  }
  for (const [name, value] of Object.entries(problem.extra.headers ?? {})) res.setHeader(name, value);
  res.status(problem.status).type('html').set(ERROR_PAGE_HEADERS).send(errorPage(problem));
}

/**
 * Content type and disposition of a file sent by a link. Renditions are JPEGs; a video plays
 * with its own type; a document downloads under its name (PDFs and pictures open in the browser,
 * sandboxed so that a PDF's scripts cannot act as this site).
 */
function fileHeaders(
  collection: Collection,
  stored: FileVariant,
  record: { name: string | null; format: string },
): Record<string, string> {
  if (stored !== 'original') return { 'Content-Type': 'image/jpeg' };
  if (collection === 'videos') return { 'Content-Type': videoContentType(record.format) };
  const format = DOCUMENT_FORMATS[record.format as DocumentFormat];
  const name = withExtension(record.name ?? 'document', format.extension);
  const inline = format.kind === 'pdf' || format.kind === 'image';
  return {
    'Content-Type': format.contentType,
    'Content-Disposition': `${inline ? 'inline' : 'attachment'}; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'Content-Security-Policy': 'sandbox',
  };
}

function withExtension(name: string, extension: string): string {
  return name.toLowerCase().endsWith(`.${extension}`) ? name : `${name}.${extension}`;
}
