/** Photos made for tests, in memory: JPEGs with EXIF times, GPS and orientation, PNGs, and broken or oversized ones. */
import zlib from 'node:zlib';
import sharp from 'sharp';

export interface JpegOptions {
  width: number;
  height: number;
  taken?: { local: string; offset?: string };
  gps?: boolean;
  orientation?: number;
}

/** A JPEG with a gradient (so that renditions have something to show) and the EXIF asked for. */
export async function jpegWith(options: JpegOptions): Promise<Buffer> {
  const { width, height } = options;
  const exif: Record<string, Record<string, string>> = { IFD0: { Make: 'TestCam', Model: 'T1' } };
  if (options.taken) {
    exif.IFD2 = { DateTimeOriginal: options.taken.local.replace(/-/g, ':').replace('T', ' ') };
    if (options.taken.offset) exif.IFD2.OffsetTimeOriginal = options.taken.offset;
  }
  if (options.gps)
    exif.IFD3 = {
      GPSLatitudeRef: 'N',
      GPSLatitude: '41/1 52/1 0/1',
      GPSLongitudeRef: 'W',
      GPSLongitude: '87/1 37/1 0/1',
    };
  let image = sharp(gradient(width, height), { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .withExif(exif);
  if (options.orientation) image = image.withMetadata({ orientation: options.orientation });
  return image.toBuffer();
}

export async function pngOf(width: number, height: number): Promise<Buffer> {
  return sharp(gradient(width, height), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A JPEG cut off in the middle of its picture data. */
export async function truncatedJpeg(): Promise<Buffer> {
  const whole = await jpegWith({ width: 800, height: 600 });
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}

/** A small PNG whose header claims 20,000 × 20,000 pixels (400 megapixels): a decompression bomb, refused from its header. */
export async function hugeHeaderPng(): Promise<Buffer> {
  const png = Buffer.from(await pngOf(16, 16));
  png.writeUInt32BE(20_000, 16);
  png.writeUInt32BE(20_000, 20);
  png.writeUInt32BE(zlib.crc32(png.subarray(12, 29)), 29);
  return png;
}

function gradient(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      pixels[at] = (x * 255) / width;
      pixels[at + 1] = (y * 255) / height;
      pixels[at + 2] = ((x + y) * 97) % 256;
    }
  }
  return pixels;
}

/** A JPEG of noise, which no encoder can squeeze: a packet of a few of them is megabytes. */
export async function noisyJpeg(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (Math.random() * 256) | 0;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}
