/**
 * What a PDF packet is built from: the answers of the read tools (so the packet's figures are
 * the ones `get_job`, `get_estimate` and `get_drying_log` give) and the photos with a local
 * picture file each. It crosses into the worker thread that lays the packet out, so it is plain
 * data.
 */
import type { Output } from '../../platform/handler';
import type { FormPdfData } from '../forms/form-pdf-document';

export interface PacketPhoto {
  room: string;
  caption: string | null;
  name: string | null;
  /** When it was taken, written in the company's time ("Nov 20, 2026 2:03 PM"). */
  taken: string;
  /** Whether `taken` is when it was taken (camera or given) or, unknown that, when it was uploaded. */
  time_is: 'taken' | 'uploaded';
  uploaded_by: string;
  /** The teammate who took it on site, when not the uploader. */
  taken_by: string | null;
  /** A local JPEG (the photo's web rendition, long side 2048 px); the worker prints it smaller. */
  picture: string;
}

export interface PacketData {
  company: { name: string; timezone: string };
  /** The day the packet is made, in the company's time ("November 25, 2026"). */
  date: string;
  job: Output<'get_job'>;
  estimate: Output<'get_estimate'> | null;
  /** `get_drying_log` with `detail: 'readings'`. */
  dryingLog: Output<'get_drying_log'> | null;
  /** Grouped by room when printed; in the order given within a room. */
  photos: PacketPhoto[] | null;
  /** The signed forms (not voided), oldest signature first, as their own PDFs print them. */
  signedForms: FormPdfData[] | null;
}
