/**
 * The export tools over MCP: the JSON answer as text, and the link as a `resource_link` block an
 * assistant's client can show or open. Never the PDF or the ZIP itself.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Output } from '../../platform/handler';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';

type Content = CallToolResult['content'];

export async function exportPdfContent(
  _deps: Deps,
  _caller: Caller,
  body: Output<'export_pdf'>,
): Promise<Content> {
  const what = body.documents.join(', ').replace('_', ' ');
  return [
    { type: 'text', text: JSON.stringify(body) },
    {
      type: 'resource_link',
      uri: body.url,
      name: `job-${body.job_number}-packet`,
      title: `PDF packet for job #${body.job_number} (${what})`,
      description: `Download page; works until ${body.expires_at}.${body.finalizes_estimate ? ' Downloading makes the estimate final.' : ''}`,
      mimeType: 'text/html',
    },
  ];
}

export async function exportPhotosContent(
  _deps: Deps,
  _caller: Caller,
  body: Output<'export_job_photos'>,
): Promise<Content> {
  return [
    { type: 'text', text: JSON.stringify(body) },
    {
      type: 'resource_link',
      uri: body.url,
      name: body.file_name,
      title: `${body.photo_count} photos of job #${body.job_number}${body.room ? ` (${body.room})` : ''}`,
      description: `ZIP of the originals by room with manifest.csv; works until ${body.expires_at}.`,
      mimeType: 'application/zip',
      size: body.bytes,
    },
  ];
}
