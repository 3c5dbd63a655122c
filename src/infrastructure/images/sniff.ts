/**
 * What a file is, by its first bytes. Apart from the decoding so that the main thread can tell
 * a photo from a document without loading sharp and libheif (about 28 MB it would hold).
 */
export type PhotoFormat = 'jpeg' | 'png' | 'heic';

/** Brands of an HEIF file holding HEVC pictures (iPhones write heic and mif1). */
const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1']);

/** JPEG, PNG or HEIC by their magic bytes; anything else (AVIF included) is not a photo the service takes. */
export function sniffPhoto(head: Buffer): PhotoFormat | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  const brands = heifBrands(head);
  return brands.some((brand) => HEIC_BRANDS.has(brand)) && !brands.includes('avif') ? 'heic' : null;
}

/** The major and compatible brands of an ISO-BMFF `ftyp` box at the start, if there is one. */
function heifBrands(head: Buffer): string[] {
  if (head.length < 16 || head.toString('latin1', 4, 8) !== 'ftyp') return [];
  const size = Math.min(head.readUInt32BE(0), head.length);
  const brands = [head.toString('latin1', 8, 12)];
  for (let at = 16; at + 4 <= size; at += 4) brands.push(head.toString('latin1', at, at + 4));
  return brands;
}

/** What a refused file seems to be, for its error message. */
export function describeContent(head: Buffer): string {
  const text = head.toString('latin1');
  if (text.startsWith('%PDF')) return 'a PDF document';
  if (text.startsWith('GIF8')) return 'a GIF image';
  if (text.startsWith('RIFF') && text.slice(8, 12) === 'WEBP') return 'a WebP image';
  if (heifBrands(head).some((b) => b === 'avif' || b === 'avis')) return 'an AVIF image';
  if (text.startsWith('PK\u0003\u0004')) return 'a ZIP archive (or an office document)';
  if (head.length > 0 && [...head].every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127)))
    return 'text';
  return 'not a recognised image';
}
