/**
 * S3-compatible storage for a test file: s3rver on a random port of 127.0.0.1, keeping its
 * objects in a fresh temporary directory, with one bucket made. `env` is what a service would
 * be started with; `settings` is the same for a file store made directly.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FileStoreSettings } from '../../src/infrastructure/files/store';
import { startApp, type TestApp } from './app';

/** The part of s3rver (which ships no types) used here. */
interface S3rver {
  httpServer?: Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
interface S3rverOptions {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}
type S3rverClass = new (options: S3rverOptions) => S3rver;

/** s3rver's built-in account. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  env: Record<string, string>;
  settings: FileStoreSettings;
  stop(): Promise<void>;
}

export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(path.join(tmpdir(), 'jms-s3-'));
  const bucket = `test-${randomBytes(4).toString('hex')}`;
  const S3rver = require('@20minutes/s3rver') as S3rverClass; // CommonJS without types
  // configureBuckets makes the bucket on disk before run() listens.
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    },
    settings: {
      filesDir: path.join(directory, 'unused-disk'),
      s3: { bucket, endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { ...CREDENTIALS } },
    },
    async stop() {
      // Clients keep connections alive; close() alone would wait for them to go.
      const closed = server.close();
      server.httpServer?.closeAllConnections();
      await closed;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The service on local disk, or on a bucket of an s3rver started for it; closing the app stops that server too. */
export async function startAppOn(store: 'disk' | 's3'): Promise<TestApp> {
  if (store === 'disk') return startApp();
  const s3 = await startS3();
  const app = await startApp(s3.env);
  return {
    ...app,
    close: async () => {
      await app.close();
      await s3.stop();
    },
  };
}
