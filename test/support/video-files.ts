/**
 * Videos made for tests with Debian's ffmpeg, in a temporary directory: 3-second test patterns
 * (320 × 240, 10 frames a second) as MP4 (H.264), MOV (H.264) and WebM (VP9), a bigger MP4 of
 * noise, and copies of the MP4 re-muxed (not re-encoded, so it takes milliseconds) with a
 * recording time, a rotation or a comment that makes their content new.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FFMPEG = '/usr/bin/ffmpeg';
const FFPROBE = '/usr/bin/ffprobe';

export const PATTERN = { width: 320, height: 240, seconds: 3 };
const SOURCE = [
  '-f',
  'lavfi',
  '-i',
  `testsrc=duration=${PATTERN.seconds}:size=${PATTERN.width}x${PATTERN.height}:rate=10`,
];
const H264 = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'];

export interface RemuxOptions {
  /** Written as the file's creation_time, which cameras and phones set. */
  creationTime?: string;
  /** Degrees, as a display matrix on the video stream (the picture itself is not turned). */
  rotate?: number;
  /** Only to make the content (and so the SHA-256) new. */
  comment?: string;
}

export interface TestVideos {
  mp4: Buffer;
  mov: Buffer;
  webm: Buffer;
  /** About 300 KB: noise at 800 kbit/s, which no encoder can squeeze. */
  large: Buffer;
  /** A copy of an MP4 with other metadata. */
  remux(source: Buffer, options: RemuxOptions): Promise<Buffer>;
  remove(): Promise<void>;
}

export async function makeTestVideos(): Promise<TestVideos> {
  const dir = await mkdtemp(path.join(tmpdir(), 'jms-videos-'));
  const make = async (name: string, args: string[]): Promise<Buffer> => {
    const out = path.join(dir, name);
    await run(FFMPEG, ['-nostdin', '-v', 'error', '-y', ...args, out]);
    return readFile(out);
  };
  // One at a time: the machine is shared, and each encoder uses every core it finds.
  const mp4 = await make('pattern.mp4', [...SOURCE, ...H264]);
  const mov = await make('pattern.mov', [...SOURCE, ...H264, '-f', 'mov']);
  const webm = await make('pattern.webm', [
    ...SOURCE,
    '-c:v',
    'libvpx-vp9',
    '-b:v',
    '200k',
    '-deadline',
    'realtime',
  ]);
  const noise = [
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${PATTERN.seconds}:size=${PATTERN.width}x${PATTERN.height}:rate=10,noise=alls=60:allf=t+u`,
  ];
  const large = await make('noise.mp4', [
    ...noise,
    ...H264,
    '-b:v',
    '800k',
    '-maxrate',
    '800k',
    '-bufsize',
    '400k',
  ]);

  async function remux(source: Buffer, options: RemuxOptions): Promise<Buffer> {
    const name = randomUUID();
    const input = path.join(dir, `${name}-in.mp4`);
    await writeFile(input, source);
    const metadata = [
      ...(options.creationTime ? ['-metadata', `creation_time=${options.creationTime}`] : []),
      ...(options.comment ? ['-metadata', `comment=${options.comment}`] : []),
      ...(options.rotate !== undefined ? ['-metadata:s:v:0', `rotate=${options.rotate}`] : []),
    ];
    const out = path.join(dir, `${name}-out.mp4`);
    await run(FFMPEG, [
      '-nostdin',
      '-v',
      'error',
      '-y',
      '-i',
      input,
      '-c',
      'copy',
      ...metadata,
      '-f',
      'mp4',
      out,
    ]);
    // ffmpeg drops a rotate tag it does not understand without a word; a fixture that is not
    // turned would make a test of turned videos pass for the wrong reason.
    if (options.rotate !== undefined && (await rotationOf(out)) === null)
      throw new Error(`ffmpeg wrote no rotation into ${out}`);
    return readFile(out);
  }

  return { mp4, mov, webm, large, remux, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The rotation ffprobe reads from the first video stream's display matrix, or null. */
async function rotationOf(file: string): Promise<number | null> {
  const { stdout } = await run(FFPROBE, [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_streams',
    '-print_format',
    'json',
    file,
  ]);
  const probed = JSON.parse(stdout) as { streams?: { side_data_list?: { rotation?: number }[] }[] };
  const rotation = probed.streams?.[0]?.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation;
  return rotation ?? null;
}
