/**
 * Everything a packet prints, gathered when it is built (./packet-builds.ts): the estimate as its
 * delivery will make it final (the download finalises it once the whole file is sent, and only
 * if it is still the version printed), then the job, the drying log and the photos as the read
 * tools give them, through the same domain functions as those tools, scoped to the caller's company. Photos' web renditions are copied to a temporary folder for the worker that
 * lays the packet out; the build writes its PDF there too.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { readableDate, readableMoment } from '../../platform/local-time';
import { loadEstimateOfJob, toEstimate, type EstimateRecord } from '../estimates/estimate-records';
import { byRoom, jobRooms, photosQuery, UNSORTED, type PhotoRow } from '../media/photo-records';
import type { ExportDocument } from './export-links';
import type { PacketData, PacketPhoto } from './packet-data';
import type { Deps } from '../services';
import type { Caller } from '../../platform/caller';
import { storageKey } from '../media/storage-keys';
import { loadJobDetail } from '../jobs/job-records';
import { readLogOfJob } from '../drying/read-log';
import { packetForms } from './packet-forms';

export interface GatheredPacket {
  data: PacketData;
  /** The version of the estimate printed, which delivering the PDF makes final; null when it prints none or it is final already. */
  draftVersion: number | null;
  /** The packet's temporary folder. */
  dir: string;
  /** Removes the folder, with the pictures copied for the packet. */
  cleanup(): Promise<void>;
}

export async function gatherPacket(
  deps: Deps,
  caller: Caller,
  jobId: string,
  documents: ExportDocument[],
  estimateId: string,
): Promise<GatheredPacket> {
  const record = documents.includes('estimate')
    ? await loadEstimateOfJob(deps.db, caller, estimateId, jobId)
    : null;
  const estimate = record ? toEstimate(asDelivered(record)) : null;
  const draftVersion = record?.estimate.status === 'draft' ? record.estimate.version : null;
  const job = await loadJobDetail(deps.db, caller, jobId);
  const dryingLog = documents.includes('drying_log')
    ? await readLogOfJob(deps.db, caller, jobId, { detail: 'readings' })
    : null;
  const signedForms = documents.includes('signed_forms') ? await packetForms(deps.db, caller, jobId) : null;
  const dir = await mkdtemp(path.join(tmpdir(), 'packet-'));
  try {
    const photos = documents.includes('photos') ? await copyPictures(deps, caller, jobId, dir) : null;
    const data: PacketData = {
      company: { name: caller.companyName, timezone: caller.timezone },
      date: readableDate(new Date(), caller.timezone),
      job,
      estimate,
      dryingLog,
      photos,
      signedForms,
    };
    return { data, draftVersion, dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The estimate as it is once the packet is delivered: final, from now if it is a draft. */
function asDelivered(record: EstimateRecord): EstimateRecord {
  if (record.estimate.status === 'final') return record;
  return { ...record, estimate: { ...record.estimate, status: 'final', finalized_at: new Date() } };
}

async function copyPictures(deps: Deps, caller: Caller, jobId: string, dir: string): Promise<PacketPhoto[]> {
  const rows = byRoom(
    await jobRooms(deps.db, jobId),
    (await photosQuery(deps.db, caller.companyId).where('ph.job_id', jobId)) as PhotoRow[],
  );
  const photos: PacketPhoto[] = [];
  for (const [i, row] of rows.entries()) {
    const picture = path.join(dir, `${i}.jpg`);
    const opened = await deps.media.files.open(storageKey(caller.companyId, row.sha256, 'web'));
    if (!opened) continue; // its file was swept after an undo in the meantime
    await pipeline(opened.stream, createWriteStream(picture));
    photos.push({
      room: row.room ?? UNSORTED,
      caption: row.caption,
      name: row.name,
      taken: readableMoment(new Date(row.taken_at), caller.timezone),
      time_is: row.taken_at_source === 'upload_time' ? 'uploaded' : 'taken',
      uploaded_by: row.uploader_name,
      taken_by: row.on_site_by && row.on_site_by !== row.uploaded_by ? row.on_site_by_name : null,
      picture,
    });
  }
  return photos;
}
