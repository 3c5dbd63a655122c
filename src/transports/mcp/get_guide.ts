/**
 * get_guide over MCP: the guide written once, as Markdown, for the assistant to read; the
 * structured result holds the same as data (sending both as text doubled its tokens).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Output } from '../../platform/handler';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';

export async function guideContent(
  _deps: Deps,
  caller: Caller,
  guide: Output<'get_guide'>,
): Promise<CallToolResult['content']> {
  const text = [
    '# Job Management Service guide',
    caller.scope === 'read'
      ? 'This key is read-only: it can look things up but not change them.'
      : 'This key can read and write.',
    '## Naming',
    guide.naming.map((line) => `- ${line}`).join('\n'),
    '## Tools by toolset',
    guide.toolsets.map((set) => `- ${set.name}: ${set.tools.join(', ')}`).join('\n'),
    '## Recipes',
    ...guide.recipes.map((recipe) => `### ${recipe.title}\n${recipe.steps}`),
  ].join('\n\n');
  return [{ type: 'text', text }];
}
