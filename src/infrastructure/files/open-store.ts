import { DiskFileStore } from './disk-store';
import type { FileStore, FileStoreSettings } from './store';

/** S3 when a bucket is configured, else local disk. */
export function openFileStore(settings: FileStoreSettings): FileStore {
  if (settings.s3) {
    // Loaded only when a bucket is configured: the S3 client is megabytes of code a disk store never runs.
    const { S3FileStore } = require('./s3-store') as typeof import('./s3-store');
    return new S3FileStore(settings.s3);
  }
  return new DiskFileStore(settings.filesDir);
}
