import { open } from 'node:fs/promises';

/** The first `bytes` of a file (fewer when it is shorter), for telling its content by magic bytes. */
export async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
