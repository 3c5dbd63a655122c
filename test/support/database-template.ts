/**
 * The migrated embedded database every test file's PGlite starts from (made once per run by
 * global-setup.ts), read once per file.
 */
import { readFile } from 'node:fs/promises';

export const TEMPLATE_ENV = 'JMS_TEST_DATABASE_TEMPLATE';

let template: Promise<Blob> | null = null;

/** null when no template was made (a file run outside jest's global setup): migrate instead. */
export function databaseTemplate(): Promise<Blob> | null {
  const file = process.env[TEMPLATE_ENV];
  if (!file) return null;
  template ??= readFile(file).then((bytes) => new Blob([bytes]));
  return template;
}
