/**
 * view_photos over MCP: each photo (or video's still frame) as a text line and an image block an assistant can look at
 * (JPEG, long side at most 1024 px), the whole answer under 1 MB. The more photos, the smaller
 * each picture: a picture over its share is made smaller again.
 */
import sharp from 'sharp';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Output } from '../../platform/handler';
import { viewablesQuery, type ViewableRow } from '../../tools/media/view_photos';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';
import { storageKey } from '../../domain/media/storage-keys';

const ANSWER_BUDGET = 1_000_000;
/** Room left in the budget for the text lines and the JSON around the blocks. */
const TEXT_ALLOWANCE = 40_000;
const LONG_SIDE = 1024;
const SMALLEST_SIDE = 256;

type Content = CallToolResult['content'];

export async function viewPhotosContent(
  deps: Deps,
  caller: Caller,
  body: Output<'view_photos'>,
): Promise<Content> {
  const share = Math.floor((ANSWER_BUDGET - TEXT_ALLOWANCE) / Math.max(1, body.photos.length));
  const shown = (await viewablesQuery(deps.db, caller.companyId).whereIn(
    'x.id',
    body.photos.map((p) => p.id),
  )) as ViewableRow[];
  const shaOf = new Map(shown.map((p) => [p.id, p.sha256]));
  const content: Content = [];
  for (const photo of body.photos) {
    const what =
      photo.kind === 'video'
        ? [`video of ${photo.duration_seconds} s (still frame)`, `recorded ${photo.taken_at}`]
        : [photo.taken_at ? `taken ${photo.taken_at}` : 'time taken unknown'];
    const line = [
      `#${photo.job_number}`,
      photo.room,
      photo.caption ?? photo.name ?? photo.id,
      ...what,
      photo.id,
    ].join(' · ');
    content.push({ type: 'text', text: line });
    const picture = await pictureWithin(
      deps,
      storageKey(caller.companyId, shaOf.get(photo.id)!, 'web'),
      share,
    );
    if (picture) content.push({ type: 'image', data: picture.toString('base64'), mimeType: 'image/jpeg' });
  }
  return content;
}

/** The rendition as a JPEG whose base64 fits `share` characters, or null when it is not in storage. */
async function pictureWithin(deps: Deps, key: string, share: number): Promise<Buffer | null> {
  const opened = await deps.media.files.open(key);
  if (!opened) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
  const rendition = Buffer.concat(chunks); // a web rendition, never an original: a few hundred KB at most
  for (let side = LONG_SIDE; ; side = Math.round(side * 0.75)) {
    const quality = side === LONG_SIDE ? 75 : 65;
    const picture = await sharp(rendition)
      .resize(side, side, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality })
      .toBuffer();
    if (Math.ceil(picture.length / 3) * 4 <= share || side <= SMALLEST_SIDE) return picture;
  }
}
