/**
 * What the upload intake hands to `upload_job_photos`, `upload_job_videos` and
 * `upload_job_documents` once every file of the request is received, checked and stored: the
 * request's details and each file's SHA-256, nothing of the bytes. It is what an operation_id's
 * replay is compared with, so the same files sent again are the same request.
 */
export type UploadTool = 'upload_job_photos' | 'upload_job_videos' | 'upload_job_documents';

export interface PreparedFile {
  sha256: string;
  /** The part's file name, kept as the record's name unless one is given. */
  file_name: string | null;
  room?: string;
  /** Photos and videos only. */
  caption?: string | null;
  name?: string | null;
}

interface UploadDetails {
  operation_id: string;
  via: 'api' | 'upload_page';
  room?: string;
  /** Photos: the teammate who took them (name or id); an upload link made for one gives theirs. */
  by?: string;
}

export type PreparedUpload = UploadDetails & {
  photos: PreparedFile[];
  /** When the photos were taken, for those whose files carry no camera time. */
  taken_at?: string;
};
export type PreparedVideoUpload = UploadDetails & { videos: PreparedFile[] };
export type PreparedDocumentUpload = UploadDetails & { documents: PreparedFile[] };
