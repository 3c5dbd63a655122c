/**
 * PDF packets are built on the job queue before they are downloaded. Asking for a packet (the
 * page's Download, or a POST to `pdf_url`) finds the build of that packet as the job is now, or
 * writes a new build's row (naming the file it will store) and queues it in the same
 * transaction. Any node builds it: it gathers what the packet prints, lays it out in the packet
 * pool, counts the photos printed as it goes, and stores the PDF in the file store. The file is
 * then sent with a known length, and again to whoever asks for the same packet.
 *
 * A build is current while its stamp is: the job's feed (how many entries, and the newest) and
 * the company's date, which the cover prints. Any change to the job, its estimate, drying log,
 * photos or notes is a feed entry, so a packet asked for after it is built again. The
 * finalisation of the estimate it prints is not counted: the packet already prints it final.
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { Caller } from '../../platform/caller';
import { findCallerOfKeyId } from '../../platform/auth';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { localDate } from '../../platform/local-time';
import type { FileStore } from '../../infrastructure/files/store';
import type { JobData, JobKind } from '../../infrastructure/queue/job-queue';
import type { Deps } from '../services';
import type { components } from '../../../sdk/src/schema';
import type { CallContext } from '../../platform/handler';
import { packetBuildUrls, type ExportDocument, type PacketLink } from './export-links';
import { gatherPacket } from './packet-gather';
import { PACKETS_PREFIX, packetKey } from '../media/storage-keys';

export const PACKET_BUILD = 'packet.build';
/** How often a build in progress writes how far it is. */
const PROGRESS_EVERY_MS = 1000;
/** A failed build is kept this long, so that a page polling it can say why. */
const FAILED_KEPT_HOURS = 1;

export type BuildState = 'queued' | 'building' | 'ready' | 'failed';
export type PacketBuildStatus = components['schemas']['PacketBuild'];

export interface PacketBuildRow {
  id: string;
  company_id: string;
  job_id: string;
  documents: string;
  estimate_id: string;
  stamp: string;
  key_id: string;
  state: BuildState;
  photos_done: number;
  photos_total: number;
  /** The draft version of the estimate the PDF prints final; null when it prints none, or a final one. */
  estimate_version: number | null;
  file_key: string;
  bytes: string | number | null;
  delivered_bytes: string | number;
  error: string | null;
  created_at: Date;
  built_at: Date | null;
}

/** A packet as a link names it: whose link, which job, which documents and estimate. */
export interface PacketOrder {
  caller: Caller;
  jobId: string;
  documents: ExportDocument[];
  /** '' when the packet holds no estimate. */
  estimateId: string;
}

interface PacketBuildJob extends JobData {
  buildId: string;
}

/** What the job is now, as far as a packet prints it. */
export async function packetStamp(db: Knex, caller: Caller, jobId: string): Promise<string> {
  const row = (await db('change_entries')
    .where({ company_id: caller.companyId, job_id: jobId })
    .whereNot('action', 'estimate.finalized')
    .first(db.raw('count(*)::int as entries'), db.raw('coalesce(max(seq), 0)::text as newest'))) as {
    entries: number;
    newest: string;
  };
  return `${row.entries}.${row.newest}@${localDate(new Date(), caller.timezone)}`;
}

/** The current build of the packet, queued now if there is none. Twenty requests at once get one build. */
export async function requestBuild(
  deps: Pick<Deps, 'db' | 'media'>,
  order: PacketOrder,
): Promise<PacketBuildRow> {
  const identity = identityOf(order);
  const stamp = await packetStamp(deps.db, order.caller, order.jobId);
  for (;;) {
    const existing = (await deps
      .db('packet_builds')
      .where({ ...identity, stamp })
      .whereNot('state', 'failed')
      .update({ last_used_at: deps.db.fn.now() })
      .returning('*')) as PacketBuildRow[];
    if (existing.length > 0) return existing[0];
    const id = newId('pkb');
    const created = await deps.db.transaction(async (trx) => {
      const row = {
        id,
        ...identity,
        stamp,
        key_id: order.caller.keyId,
        state: 'queued',
        file_key: packetKey(order.caller.companyId, id),
      };
      const inserted = (await trx('packet_builds')
        .insert(row)
        .onConflict()
        .ignore()
        .returning('*')) as PacketBuildRow[];
      if (inserted.length > 0)
        await deps.media.queue.send<PacketBuildJob>(
          PACKET_BUILD,
          { companyId: order.caller.companyId, buildId: id },
          { db: trx },
        );
      return inserted[0];
    });
    // Another request made the same build a moment ago: it is found on the next turn.
    if (created) return created;
  }
}

/** The build of the packet as the job is now, if one was asked for; null otherwise. Queues nothing. */
export async function currentBuild(db: Knex, order: PacketOrder): Promise<PacketBuildRow | null> {
  const stamp = await packetStamp(db, order.caller, order.jobId);
  const build = (await db('packet_builds')
    .where({ ...identityOf(order), stamp })
    .whereNot('state', 'failed')
    .first()) as PacketBuildRow | undefined;
  return build ?? null;
}

/** A build as its status URL answers it: where it is, and once built, the file's URL. */
export async function buildStatus(
  ctx: Pick<CallContext, 'config' | 'links'>,
  link: PacketLink,
  jobNumber: number,
  build: PacketBuildRow,
): Promise<PacketBuildStatus> {
  const urls = await packetBuildUrls(ctx, link, build.id, jobNumber);
  const bytes = build.bytes === null ? null : Number(build.bytes);
  return {
    id: build.id,
    state: build.state,
    photos: { printed: build.photos_done, total: build.photos_total },
    bytes,
    error: build.error,
    status_url: urls.status,
    download_url: build.state === 'ready' ? urls.file : null,
    delivered: bytes !== null && Number(build.delivered_bytes) >= bytes,
    created_at: new Date(build.created_at).toISOString(),
    built_at: build.built_at ? new Date(build.built_at).toISOString() : null,
  };
}

function identityOf(order: PacketOrder) {
  return {
    company_id: order.caller.companyId,
    job_id: order.jobId,
    documents: order.documents.join(','),
    estimate_id: order.estimateId,
  };
}

/** A build of the packet the link names; another packet's build (or none) is a 404. */
export async function findBuild(db: Knex, order: PacketOrder, buildId: string): Promise<PacketBuildRow> {
  const build = (await db('packet_builds')
    .where({ id: buildId, ...identityOf(order) })
    .first()) as PacketBuildRow | undefined;
  if (!build)
    throw new ApiError(404, 'not_found', 'No such build of this packet: POST the packet link to build it.');
  return build;
}

/** Whether the job changed since the build was asked for (it is then built again before it is sent). */
export async function isOutdated(db: Knex, order: PacketOrder, build: PacketBuildRow): Promise<boolean> {
  return build.stamp !== (await packetStamp(db, order.caller, order.jobId));
}

/**
 * Records that the bytes `start` to `end` (inclusive) of the build's file were handed to a
 * client, and answers whether the whole file now has been, from its first byte on: a download
 * resumed with a range completes the one it resumes.
 */
export async function recordDelivery(
  db: Knex,
  build: PacketBuildRow,
  start: number,
  end: number,
): Promise<boolean> {
  const [row] = (await db('packet_builds')
    .where({ id: build.id })
    .where('delivered_bytes', '>=', start)
    .update({ delivered_bytes: db.raw('greatest(delivered_bytes, ?)', [end + 1]), last_used_at: db.fn.now() })
    .returning(['delivered_bytes', 'bytes'])) as { delivered_bytes: string; bytes: string }[];
  return row !== undefined && Number(row.delivered_bytes) >= Number(row.bytes);
}

/**
 * The queue's kind that builds packets, PDF_WORKERS at once on a node. A node that dies mid-build
 * leaves the job active: once it has run PACKET_BUILD_SECONDS, another node builds it.
 */
export function packetBuildKind(deps: Deps): JobKind<PacketBuildJob> {
  const { pdfWorkers, packetBuildSeconds } = deps.config;
  return {
    name: PACKET_BUILD,
    concurrency: pdfWorkers,
    expireInSeconds: packetBuildSeconds,
    retryLimit: 3,
    retryDelaySeconds: 5,
    run: (job) => build(deps, job.buildId),
  };
}

async function build(deps: Deps, buildId: string): Promise<void> {
  const row = (await deps.db('packet_builds').where({ id: buildId }).first()) as PacketBuildRow | undefined;
  if (!row || row.state === 'ready' || row.state === 'failed') return;
  const update = (changes: Partial<Record<keyof PacketBuildRow, unknown>>) =>
    deps.db('packet_builds').where({ id: buildId }).update(changes);
  await update({ state: 'building', photos_done: 0 });
  const caller = await findCallerOfKeyId(deps.db, row.key_id);
  if (!caller)
    return void (await update({ state: 'failed', error: 'The key that made this link was revoked.' }));
  try {
    const packet = await gatherPacket(
      deps,
      caller,
      row.job_id,
      row.documents.split(',') as ExportDocument[],
      row.estimate_id,
    );
    try {
      await update({ photos_total: packet.data.photos?.length ?? 0, estimate_version: packet.draftVersion });
      const file = path.join(packet.dir, 'packet.pdf');
      await pipeline(deps.media.packets.build(packet.data, progressWriter(update)), createWriteStream(file));
      await deps.media.files.putFile(row.file_key, file, 'application/pdf');
      await update({
        state: 'ready',
        bytes: (await stat(file)).size,
        photos_done: packet.data.photos?.length ?? 0,
        built_at: deps.db.fn.now(),
      });
    } finally {
      await packet.cleanup();
    }
  } catch (error) {
    // Asked again, the packet is built anew; a node that dies instead leaves the job to the queue.
    await update({ state: 'failed', error: (error as Error).message });
  }
}

/** Writes the photos printed at most once every PROGRESS_EVERY_MS. */
function progressWriter(
  update: (changes: { photos_done: number }) => Promise<unknown>,
): (printed: number) => void {
  let written = 0;
  return (printed) => {
    if (Date.now() - written < PROGRESS_EVERY_MS) return;
    written = Date.now();
    update({ photos_done: printed }).catch(() => undefined);
  };
}

/**
 * Removes builds nobody asked for in `keepHours` (failed ones after an hour) with their files,
 * then packet files no build names (a build's row is written first, so these are only what a
 * crash between deleting a row and its file left).
 */
export async function sweepPacketBuilds(db: Knex, files: FileStore, keepHours: number): Promise<number> {
  const gone = (await db('packet_builds')
    .whereRaw('last_used_at < now() - make_interval(hours => ?)', [keepHours])
    .orWhere((failed) =>
      failed
        .where('state', 'failed')
        .whereRaw('last_used_at < now() - make_interval(hours => ?)', [FAILED_KEPT_HOURS]),
    )
    .delete()
    .returning('file_key')) as { file_key: string }[];
  const known = new Set(
    (await db('packet_builds').select('file_key')).map((row: { file_key: string }) => row.file_key),
  );
  const orphans = (await files.list(PACKETS_PREFIX)).filter((key) => !known.has(key));
  await files.delete([...gone.map((row) => row.file_key), ...orphans]);
  return gone.length + orphans.length;
}
