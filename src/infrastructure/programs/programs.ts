/**
 * The one way the service runs other programs (ffprobe, ffmpeg, pdfinfo, pdftotext, pdftoppm,
 * tesseract): without a shell, with a hard time limit, at a lower CPU priority, and keeping at
 * most a capped amount of their output, so that no file can make one run forever or fill the
 * memory.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

const STDERR_CAP = 16 * 1024;
/**
 * Programs run at a lower CPU priority than the service (nice 10): on a node whose cores are
 * busy with video stills or OCR, the event loop answering every company's calls goes first.
 */
const PROGRAM_NICENESS = 10;

export interface ProgramRun {
  code: number | null;
  timedOut: boolean;
  /** The output was larger than the cap: the program was killed and `stdout` is cut. */
  overflowed: boolean;
  stdout: Buffer;
  stderr: string;
}

export interface ProgramOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  env?: NodeJS.ProcessEnv;
  /** Kills the program when aborted (e.g. a pool closing). */
  signal?: AbortSignal;
}

/**
 * Runs a program without a shell and collects its output; SIGKILL when it outlives the timeout,
 * writes more than the cap or is aborted. Rejects only when it cannot be started.
 */
export function runProgram(command: string, args: string[], options: ProgramOptions): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    lowerPriority(child.pid);
    let timedOut = false;
    let overflowed = false;
    const kill = (): void => void child.kill('SIGKILL');
    const stdout = collect(child.stdout, options.maxOutputBytes, () => {
      overflowed = true;
      kill();
    });
    const stderr = collect(child.stderr, STDERR_CAP, () => undefined);
    const timer = setTimeout(
      () => {
        timedOut = true;
        kill();
      },
      Math.max(1, options.timeoutMs),
    );
    options.signal?.addEventListener('abort', kill, { once: true });
    if (options.signal?.aborted) kill();
    const done = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
    };
    child.once('error', (error) => {
      done();
      reject(error);
    });
    // 'close' rather than 'exit': the output streams are complete by then.
    child.once('close', (code) => {
      done();
      resolve({ code, timedOut, overflowed, stdout: stdout(), stderr: stderr().toString('utf8') });
    });
  });
}

function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return; // not started: the 'error' event says why
  try {
    setPriority(pid, PROGRAM_NICENESS);
  } catch {
    // already gone: nothing to lower
  }
}

/** Keeps at most `cap` bytes of a stream; calls `onOverflow` once when more arrive. */
function collect(stream: NodeJS.ReadableStream, cap: number, onOverflow: () => void): () => Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    if (size < cap) chunks.push(chunk.subarray(0, cap - size));
    if (size <= cap && size + chunk.length > cap) onOverflow();
    size += chunk.length;
  });
  return () => Buffer.concat(chunks);
}
