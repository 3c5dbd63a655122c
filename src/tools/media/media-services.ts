/** What files need on each node: the file store, the pool that decodes images, and the link signer. */
import type { Knex } from 'knex';
import type { Config } from '../../config';
import { openFileStore, type FileStore } from '../../files/store';
import { LinkSigner } from '../../platform/links';
import { DecodePool } from './decode-pool';

export interface MediaServices {
  files: FileStore;
  images: DecodePool;
  links: LinkSigner;
  stop(): Promise<void>;
}

export async function startMedia(db: Knex, config: Config): Promise<MediaServices> {
  const links = new LinkSigner(db, config.links.secret);
  await links.ready();
  const images = new DecodePool(config.mediaWorkers);
  return { files: openFileStore(config.files), images, links, stop: () => images.destroy() };
}
