/**
 * What the upload intake hands to `upload_job_photos` once every file of the request is received,
 * checked and stored: the request's details and each file's SHA-256, nothing of the bytes. It is
 * what an operation_id's replay is compared with, so the same files sent again are the same
 * request.
 */
export interface PreparedPhoto {
  sha256: string;
  /** The part's file name, kept as the photo's name unless one is given. */
  file_name: string | null;
  room?: string;
  caption?: string | null;
  name?: string | null;
}

export interface PreparedUpload {
  operation_id: string;
  via: 'api' | 'upload_page';
  room?: string;
  photos: PreparedPhoto[];
}
