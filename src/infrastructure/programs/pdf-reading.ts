/**
 * Reading stored PDFs with poppler's command-line tools (pdfinfo, pdftotext), each in a child
 * process: no shell, a hard timeout (SIGKILL) and a cap on the output collected, so that a
 * hostile or broken file costs at most a bounded amount of time and memory, never the server.
 */
import path from 'node:path';
import { runProgram } from './programs';

export interface PdfLimits {
  maxPages: number;
  maxPageSidePoints: number;
}

/** A page as displayed: its crop box, with the page's rotation applied. */
export interface PdfPage {
  widthPt: number;
  heightPt: number;
}

export type PdfInspection =
  | { ok: true; pageCount: number; pages: PdfPage[] }
  | { ok: false; problem: 'encrypted' | 'corrupt' | 'too_many_pages' | 'page_too_large'; detail: string };

const TOOL_TIMEOUT_MS = 20_000;
const PDFINFO_OUTPUT_CAP = 4 * 1024 * 1024;
const TEXT_OUTPUT_CAP = 64 * 1024 * 1024;

/** A file name can never be taken for an option (a name starting with '-'). */
export function fileArg(file: string): string {
  return path.resolve(file);
}

/** The tool's last message on one short line, e.g. "Couldn't read xref table". */
export function lastMessage(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const line = lines.at(-1) ?? 'no message';
  return line
    .replace(/^(Syntax |Internal |I\/O |Command Line )?(Error|Warning)( \(\d+\))?: /, '')
    .slice(0, 200);
}

export async function inspectPdf(file: string, limits: PdfLimits): Promise<PdfInspection> {
  // One run: `-l` is clamped by pdfinfo to the page count, so it prints every page's size
  // (up to the limit) along with the count.
  const lastPage = String(Math.max(1, limits.maxPages));
  const run = await runProgram('pdfinfo', ['-enc', 'UTF-8', '-f', '1', '-l', lastPage, fileArg(file)], {
    timeoutMs: TOOL_TIMEOUT_MS,
    maxOutputBytes: PDFINFO_OUTPUT_CAP,
  });
  if (run.timedOut)
    return corrupt('The PDF could not be read in time (it may be damaged or built to be slow).');
  if (run.overflowed) return corrupt("The PDF's description is too large to read.");
  if (run.code !== 0) return refusal(run.stderr);
  return judgePages(run.stdout.toString('utf8'), limits);
}

function corrupt(detail: string): PdfInspection {
  return { ok: false, problem: 'corrupt', detail };
}

function refusal(stderr: string): PdfInspection {
  if (/Incorrect password/i.test(stderr)) {
    return {
      ok: false,
      problem: 'encrypted',
      detail: 'The PDF is protected by a password; a copy without the password is needed.',
    };
  }
  // A missing or unreadable stored file is the server's fault, not the document's.
  if (/^I\/O Error: Couldn't open file/m.test(stderr))
    throw new Error(`pdfinfo could not open the file: ${lastMessage(stderr)}`);
  if (/Document stream is empty/.test(stderr)) return corrupt('The file is empty.');
  if (/May not be a PDF file/.test(stderr)) return corrupt('The file is not a PDF.');
  return corrupt(`The PDF is damaged and cannot be read (${lastMessage(stderr)}).`);
}

function judgePages(info: string, limits: PdfLimits): PdfInspection {
  const pageCount = Number(/^Pages:\s+(\d+)\s*$/m.exec(info)?.[1] ?? NaN);
  if (!Number.isSafeInteger(pageCount) || pageCount < 1) return corrupt('The PDF has no pages.');
  if (pageCount > limits.maxPages) {
    return {
      ok: false,
      problem: 'too_many_pages',
      detail: `The PDF has ${pageCount} pages; at most ${limits.maxPages} are taken.`,
    };
  }
  const pages = parsePages(info, pageCount);
  if (pages === null) return corrupt("The PDF's page sizes cannot be read.");
  const large = pages.findIndex((page) => Math.max(page.widthPt, page.heightPt) > limits.maxPageSidePoints);
  if (large >= 0) {
    const { widthPt, heightPt } = pages[large]!;
    const detail = `Page ${large + 1} is ${inches(widthPt)} × ${inches(heightPt)} in; a page side of at most ${inches(limits.maxPageSidePoints)} in is taken.`;
    return { ok: false, problem: 'page_too_large', detail };
  }
  return { ok: true, pageCount, pages };
}

/**
 * 'Page    N size:  W x H pts (letter)' and 'Page    N rot:   90' lines, as printed with -f/-l.
 * The size is the crop box (what a viewer shows, and what pdftoppm -cropbox renders); a page
 * turned a quarter is displayed with its sides swapped. Null when a page is missing.
 */
function parsePages(info: string, pageCount: number): PdfPage[] | null {
  const sizes = new Map<number, PdfPage>();
  const rotations = new Map<number, number>();
  for (const match of info.matchAll(/^Page\s+(\d+) size:\s+([\d.eE+-]+) x ([\d.eE+-]+) pts/gm)) {
    sizes.set(Number(match[1]), { widthPt: Number(match[2]), heightPt: Number(match[3]) });
  }
  for (const match of info.matchAll(/^Page\s+(\d+) rot:\s+(-?\d+)/gm))
    rotations.set(Number(match[1]), Number(match[2]));
  const pages: PdfPage[] = [];
  for (let n = 1; n <= pageCount; n++) {
    const size = sizes.get(n);
    if (!size || !(size.widthPt > 0) || !(size.heightPt > 0)) return null;
    const quarterTurned = Math.abs(rotations.get(n) ?? 0) % 180 === 90;
    pages.push(quarterTurned ? { widthPt: size.heightPt, heightPt: size.widthPt } : size);
  }
  return pages;
}

function inches(points: number): string {
  return String(Math.round((points / 72) * 10) / 10);
}

export async function textLayer(file: string, from: number, to: number): Promise<string[]> {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) {
    throw new RangeError(`Invalid page range ${from}..${to}`);
  }
  const count = to - from + 1;
  // pdftotext ends every page with a form feed; one in a page's own text is printed as a space
  // (checked with poppler 22.12), so the pieces are the pages. Pages past the end are not printed.
  const parts = (await pdftotext(file, from, to)).split('\f');
  if (parts.length > count + 1) throw new Error(`pdftotext printed ${parts.length - 1} pages for ${count}`);
  const pages = parts.slice(0, count);
  while (pages.length < count) pages.push('');
  return pages.map(trimPage);
}

async function pdftotext(file: string, from: number, to: number): Promise<string> {
  const args = ['-layout', '-f', String(from), '-l', String(to), '-enc', 'UTF-8', fileArg(file), '-'];
  const run = await runProgram('pdftotext', args, {
    timeoutMs: TOOL_TIMEOUT_MS,
    maxOutputBytes: TEXT_OUTPUT_CAP,
  });
  if (run.timedOut)
    throw new Error(`pdftotext took over ${TOOL_TIMEOUT_MS / 1000} s on pages ${from}..${to}`);
  if (run.overflowed)
    throw new Error(`pdftotext wrote over ${TEXT_OUTPUT_CAP} bytes for pages ${from}..${to}`);
  if (run.code !== 0) throw new Error(`pdftotext failed (exit ${run.code}): ${lastMessage(run.stderr)}`);
  return run.stdout.toString('utf8');
}

function trimPage(page: string): string {
  return page
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trimEnd();
}

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
const COMMON_PUNCTUATION = /[.,;:!?'"‘’“”()[\]{}<>\-‐–—/\\&%$€£¥#@*+=_|~…•°§©®™]/u;
const UNMAPPED = /[\uFFFD\uE000-\uF8FF]/u;

/**
 * Whether a page's text layer cannot be trusted, so OCR should read the page instead. A scanned
 * page has no text (or a few stray words); a font without a Unicode map yields control characters,
 * symbols, U+FFFD or private-use code points instead of words. Pages with tables or numbers stay
 * mostly letters, digits and common punctuation, so these rough ratios tell the cases apart.
 */
export function needsOcr(text: string): boolean {
  let nonSpace = 0;
  let word = 0;
  let punctuation = 0;
  let unmapped = 0;
  for (const char of text) {
    if (/\s/u.test(char)) continue;
    nonSpace++;
    if (WORD_CHAR.test(char)) word++;
    else if (COMMON_PUNCTUATION.test(char)) punctuation++;
    else if (UNMAPPED.test(char)) unmapped++;
  }
  if (word < 20) return true;
  if (word + punctuation < nonSpace / 2) return true;
  // Unmapped glyphs are lost words even among readable text: a quarter of them is enough.
  return unmapped > nonSpace / 4;
}

const FULL_DPI = 300;

/** 300 dpi, lowered so that the page's longer side is at most `maxSidePixels` pixels. */
export function renderDpi(page: PdfPage, maxSidePixels: number): number {
  const longerInches = Math.max(page.widthPt, page.heightPt) / 72;
  if (!(longerInches > 0)) return FULL_DPI;
  return Math.max(1, Math.min(FULL_DPI, Math.floor(maxSidePixels / longerInches)));
}
