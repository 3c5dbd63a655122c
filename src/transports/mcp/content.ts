/**
 * Tools whose MCP answer shows more than their JSON as text: the content blocks each one gives
 * (the structured result is the same as the HTTP answer).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Output, ToolName } from '../../platform/handler';
import { viewPhotosContent } from './view_photos';
import { exportPdfContent, exportPhotosContent } from './exports';
import { guideContent } from './get_guide';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';

type Content = CallToolResult['content'];
type Presenter<N extends ToolName> = (deps: Deps, caller: Caller, body: Output<N>) => Promise<Content>;

const presenters: { [N in ToolName]?: Presenter<N> } = {
  get_guide: guideContent,
  view_photos: viewPhotosContent,
  export_pdf: exportPdfContent,
  export_job_photos: exportPhotosContent,
};

/** The content blocks of a tool's answer: its own presentation, else the JSON as text. */
export async function mcpContentOf<N extends ToolName>(
  deps: Deps,
  caller: Caller,
  name: N,
  body: Output<N>,
): Promise<Content> {
  const present = presenters[name] as Presenter<N> | undefined;
  return present ? present(deps, caller, body) : [{ type: 'text', text: JSON.stringify(body ?? {}) }];
}
