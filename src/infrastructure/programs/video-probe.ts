/**
 * Checks an uploaded video by its content, reads its facts with ffprobe and makes a still frame
 * with ffmpeg. Both run as child processes (never on the event loop), each under a hard time
 * limit, and at most `concurrency` videos are examined at once.
 */
import { rm, stat } from 'node:fs/promises';
import { readHead } from '../files/head';
import fastq from 'fastq';
import { runProgram } from './programs';
import sharp from 'sharp';

export type VideoFormat = 'mp4' | 'mov' | 'webm';

export interface VideoFacts {
  ok: true;
  format: VideoFormat;
  durationSeconds: number;
  /** As displayed: swapped when the stream is rotated by ±90°. */
  width: number;
  height: number;
  codec: string;
  recordedAt: string | null;
  still: { width: number; height: number };
}

export type VideoResult =
  | VideoFacts
  | { ok: false; problem: 'unsupported' | 'corrupt' | 'timeout'; detail: string };

interface VideoTask {
  sourcePath: string;
  stillPath: string;
}

type Refusal = Extract<VideoResult, { ok: false }>;

const HEAD_BYTES = 4096;
const STILL_SIDE = 2048;
const OUTPUT_CAP = 1024 * 1024;
/** ISO-BMFF brands of still pictures (HEIF, AVIF, Canon CR3) and of audio-only files. */
const NOT_VIDEO_BRANDS = new Map<string, string>([
  ...['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'mif2', 'msf1'].map((b): [string, string] => [
    b,
    'a HEIC/HEIF image',
  ]),
  ...['avif', 'avis', 'avio'].map((b): [string, string] => [b, 'an AVIF image']),
  ['crx ', 'a Canon raw photo (CR3)'],
  ...['M4A ', 'M4B ', 'M4P '].map((b): [string, string] => [b, 'an audio file (M4A)']),
]);
const EBML_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
const EBML_DOCTYPE_ID = Buffer.from([0x42, 0x82]);

/** mp4 or mov by the `ftyp` box's major brand, webm by the EBML DocType; anything else is not a video the service takes. */
export function sniffVideo(head: Buffer): VideoFormat | null {
  const brand = majorBrand(head);
  if (brand !== null) return NOT_VIDEO_BRANDS.has(brand) ? null : brand === 'qt  ' ? 'mov' : 'mp4';
  return ebmlDocType(head) === 'webm' ? 'webm' : null;
}

function majorBrand(head: Buffer): string | null {
  if (head.length < 12 || head.toString('latin1', 4, 8) !== 'ftyp' || head.readUInt32BE(0) < 12) return null;
  return head.toString('latin1', 8, 12);
}

/** The DocType string in the EBML header ('webm', 'matroska'), found by its element ID within the head. */
function ebmlDocType(head: Buffer): string | null {
  if (!head.subarray(0, 4).equals(EBML_MAGIC)) return null;
  for (let at = head.indexOf(EBML_DOCTYPE_ID, 4); at >= 0; at = head.indexOf(EBML_DOCTYPE_ID, at + 1)) {
    const size = readVint(head, at + 2);
    if (size && size.value <= 32) {
      const start = at + 2 + size.length;
      if (start + size.value <= head.length)
        return head.toString('latin1', start, start + size.value).replace(/\0+$/, '');
    }
  }
  return null;
}

/** An EBML variable-length integer: the count of leading zero bits in the first byte gives its length. */
function readVint(buffer: Buffer, at: number): { value: number; length: number } | null {
  const first = buffer[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (length > 4 || at + length > buffer.length) return null;
  let value = first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + buffer[at + i]!;
  return { value, length };
}

/** What a refused file seems to be, for its detail. */
function describeContent(head: Buffer): string {
  if (head.length === 0) return 'the file is empty';
  const text = head.toString('latin1', 0, 16);
  const brand = majorBrand(head);
  const known: Array<[boolean, string]> = [
    [brand !== null && NOT_VIDEO_BRANDS.has(brand), `its content is ${NOT_VIDEO_BRANDS.get(brand ?? '')}`],
    [
      head.subarray(0, 4).equals(EBML_MAGIC),
      `it is Matroska (${ebmlDocType(head) ?? 'unknown type'}), not WebM`,
    ],
    [text.startsWith('%PDF'), 'it starts with %PDF (a PDF document)'],
    [head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff, 'its content is a JPEG image'],
    [text.startsWith('\x89PNG'), 'its content is a PNG image'],
    [text.startsWith('GIF8'), 'its content is a GIF image'],
    [
      text.startsWith('RIFF') && text.slice(8, 11) === 'AVI',
      'its content is an AVI video, which is not taken',
    ],
    [text.startsWith('RIFF') && text.slice(8, 12) === 'WEBP', 'its content is a WebP image'],
    [text.startsWith('PK\x03\x04'), 'its content is a ZIP archive (or an office document)'],
  ];
  return known.find(([matches]) => matches)?.[1] ?? 'unknown content';
}

/** What a run left: its output as text (ffprobe's JSON, ffmpeg's messages). */
interface Run {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[], timeoutMs: number): Promise<Run> {
  const result = await runProgram(command, args, { timeoutMs, maxOutputBytes: OUTPUT_CAP });
  return {
    code: result.code,
    timedOut: result.timedOut,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr,
  };
}

/** ffmpeg's message in one short line, without its `[demuxer @ 0x…]` prefix or the server's file path. */
function firstLine(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .map((l) => l.replace(/^\[[^\]]*\]\s*/, '').trim())
      .find((l) => l.length > 0) ?? 'no message';
  return line.replace(/^file:.*?: /, '').slice(0, 200);
}

/** The demuxer is forced to what the magic bytes said, so ffmpeg never guesses another (e.g. a playlist). */
function inputArgs(format: VideoFormat, sourcePath: string): string[] {
  return [
    '-f',
    format === 'webm' ? 'matroska' : 'mov',
    '-protocol_whitelist',
    'file',
    '-i',
    `file:${sourcePath}`,
  ];
}

interface ProbeStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: Array<{ rotation?: number }>;
}

interface ProbeOutput {
  streams?: ProbeStream[];
  format?: { duration?: string; tags?: Record<string, string> };
}

interface Probed {
  ok: true;
  streamIndex: number;
  durationSeconds: number;
  facts: Omit<VideoFacts, 'still'>;
}

function corrupt(detail: string): Refusal {
  return { ok: false, problem: 'corrupt', detail };
}

async function probe(format: VideoFormat, sourcePath: string, timeoutMs: number): Promise<Probed | Refusal> {
  const args = [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    ...inputArgs(format, sourcePath),
  ];
  const result = await run('ffprobe', args, timeoutMs);
  if (result.timedOut)
    return { ok: false, problem: 'timeout', detail: `ffprobe took longer than ${timeoutMs} ms` };
  if (result.code !== 0) return corrupt(`ffprobe could not read it: ${firstLine(result.stderr)}`);
  let output: ProbeOutput;
  try {
    output = JSON.parse(result.stdout) as ProbeOutput;
  } catch {
    return corrupt('ffprobe gave no readable answer');
  }
  return readFacts(format, output);
}

function readFacts(format: VideoFormat, output: ProbeOutput): Probed | Refusal {
  // A cover picture in an MP4 is a "video" stream too; it is not the video.
  const stream = output.streams?.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!stream) return corrupt('it has no video stream');
  if (!stream.width || !stream.height) return corrupt('its video stream has no picture size');
  const duration = Number(output.format?.duration ?? stream.duration);
  if (!Number.isFinite(duration) || duration <= 0) return corrupt('it has no duration');
  const turned = quarterTurned(stream);
  const facts: Omit<VideoFacts, 'still'> = {
    ok: true,
    format,
    durationSeconds: Math.round(duration * 1000) / 1000,
    width: turned ? stream.height : stream.width,
    height: turned ? stream.width : stream.height,
    codec: stream.codec_name ?? 'unknown',
    recordedAt: recordedAt(output.format?.tags ?? {}),
  };
  return { ok: true, streamIndex: stream.index, durationSeconds: duration, facts };
}

/** ±90° (or 270°) by the display matrix (ffprobe 5+) or the older `rotate` tag. */
function quarterTurned(stream: ProbeStream): boolean {
  const rotation =
    stream.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation ??
    Number(stream.tags?.rotate ?? 0);
  return Math.abs(Math.round(rotation)) % 180 === 90;
}

/**
 * Apple's creationdate first: it keeps the recording time when the phone re-exports (trims) a
 * clip, while creation_time becomes the export time. Epoch 0 means a muxer that wrote no date.
 */
function recordedAt(tags: Record<string, string>): string | null {
  for (const value of [tags['com.apple.quicktime.creationdate'], tags.creation_time]) {
    if (!value || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) continue;
    const time = new Date(value);
    if (!Number.isNaN(time.getTime()) && time.getTime() > 0) return time.toISOString();
  }
  return null;
}

/** Fits within 2048 on its long side, never enlarged, even sides (chroma subsampling). */
const SCALE = `scale='min(${STILL_SIDE},iw)':'min(${STILL_SIDE},ih)':force_original_aspect_ratio=decrease:force_divisible_by=2`;

/** One frame at `at` seconds as a JPEG; ffmpeg applies the rotation itself (autorotate). `null` when no frame came out. */
async function writeStill(
  format: VideoFormat,
  task: VideoTask,
  streamIndex: number,
  at: number,
  timeoutMs: number,
): Promise<Run | null> {
  await rm(task.stillPath, { force: true });
  // -threads 1 on both sides keeps it to one core; bitexact drops the encoder's name from the JPEG;
  // -update 1 takes the output name literally (no %d pattern).
  const args = [
    ...[
      '-nostdin',
      '-v',
      'error',
      '-threads',
      '1',
      '-ss',
      at.toFixed(3),
      ...inputArgs(format, task.sourcePath),
    ],
    ...[
      '-map',
      `0:${streamIndex}`,
      '-frames:v',
      '1',
      '-vf',
      SCALE,
      '-threads',
      '1',
      '-q:v',
      '3',
      '-map_metadata',
      '-1',
      '-flags:v',
      '+bitexact',
    ],
    ...['-f', 'image2', '-c:v', 'mjpeg', '-update', '1', '-y', `file:${task.stillPath}`],
  ];
  const result = await run('ffmpeg', args, timeoutMs);
  if (result.timedOut || result.code !== 0) return result;
  const written = await stat(task.stillPath).catch(() => null);
  return written && written.size > 0 ? result : null;
}

async function makeStill(
  format: VideoFormat,
  task: VideoTask,
  probed: Probed,
  timeoutMs: number,
): Promise<VideoFacts['still'] | Refusal> {
  const deadline = Date.now() + timeoutMs;
  let result = await writeStill(
    format,
    task,
    probed.streamIndex,
    Math.min(1, probed.durationSeconds / 2),
    timeoutMs,
  );
  // Seeking can land past the last frame of a very short (or badly timed) clip: then the first frame.
  if (result === null) result = await writeStill(format, task, probed.streamIndex, 0, deadline - Date.now());
  const failure = stillFailure(result, timeoutMs);
  // A killed ffmpeg can leave half a JPEG behind.
  if (failure) await rm(task.stillPath, { force: true });
  if (failure) return failure;
  const { width, height } = await sharp(task.stillPath).metadata();
  return width && height ? { width, height } : corrupt('the still could not be read back');
}

function stillFailure(result: Run | null, timeoutMs: number): Refusal | null {
  if (result === null) return corrupt('ffmpeg found no frame to make a still from');
  if (result.timedOut)
    return {
      ok: false,
      problem: 'timeout',
      detail: `ffmpeg took longer than ${timeoutMs} ms to make a still`,
    };
  return result.code === 0 ? null : corrupt(`ffmpeg could not decode a frame: ${firstLine(result.stderr)}`);
}

export class VideoTools {
  private readonly queue: fastq.queueAsPromised<VideoTask, VideoResult>;
  private availability: Promise<boolean> | null = null;

  constructor(
    private readonly options: { concurrency: number; probeTimeoutMs: number; stillTimeoutMs: number },
  ) {
    this.queue = fastq.promise((task: VideoTask) => this.examineNow(task), options.concurrency);
  }

  /**
   * Waits for a free slot, then examines. The time limits start when the work starts, not while
   * queued. Rejects (rather than blaming the file) when the file cannot be opened or ffmpeg cannot be run.
   */
  examine(task: { sourcePath: string; stillPath: string }): Promise<VideoResult> {
    return this.queue.push(task);
  }

  available(): Promise<boolean> {
    this.availability ??= Promise.all(
      ['ffmpeg', 'ffprobe'].map((command) =>
        run(command, ['-version'], 5000).then(
          (r) => r.code === 0,
          () => false,
        ),
      ),
    ).then((ok) => ok.every(Boolean));
    return this.availability;
  }

  private async examineNow(task: VideoTask): Promise<VideoResult> {
    const head = await readHead(task.sourcePath, HEAD_BYTES);
    const format = sniffVideo(head);
    if (!format) return { ok: false, problem: 'unsupported', detail: describeContent(head) };
    const probed = await probe(format, task.sourcePath, this.options.probeTimeoutMs);
    if (!probed.ok) return probed;
    const still = await makeStill(format, task, probed, this.options.stillTimeoutMs);
    return 'ok' in still ? still : { ...probed.facts, still };
  }
}
