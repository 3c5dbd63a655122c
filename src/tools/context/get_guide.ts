/**
 * The live guide, made from the spec itself: the naming rules and recipes of `info.x-guide`, and
 * every operation this key may call. A recipe shows only when all of its tools exist.
 */
import spec from '../../generated/openapi.json';
import { operations, type OperationSpec } from '../../generated/operations';
import type { Output, ReadHandler } from '../../platform/handler';

type Guide = Output<'get_guide'>;
type Scope = 'read' | 'write';

interface GuideSource {
  naming: string[];
  recipes: { title: string; tools: string[]; steps: string }[];
}

const source = (spec.info as unknown as { 'x-guide': GuideSource })['x-guide'];
const guides = new Map<Scope, Guide>();

function usable(op: OperationSpec, scope: Scope): boolean {
  return op.scope === 'read' || (op.scope === 'write' && scope === 'write');
}

function buildGuide(scope: Scope): Guide {
  const ops = Object.values(operations).filter((op) => usable(op, scope));
  const names = new Set(ops.map((op) => op.name));
  const tools = ops.map((op) => ({
    name: op.name,
    summary: op.summary,
    description: op.description,
    scope: op.scope as Scope,
    method: op.method,
    path: op.path,
    http_only: !op.mcp,
  }));
  const recipes = source.recipes.filter((recipe) => recipe.tools.every((tool) => names.has(tool)));
  const text = [
    '# Job Management Service guide',
    scope === 'read' ? 'This key is read-only: it can look things up but not change them.' : 'This key can read and write.',
    '## Naming',
    ...source.naming.map((line) => `- ${line}`),
    '## Tools',
    ...tools.map((t) => `- \`${t.name}\` (${t.scope}${t.http_only ? ', HTTP only' : ''}): ${t.summary}.`),
    '## Recipes',
    ...recipes.map((r) => `### ${r.title}\n${r.steps}`),
  ].join('\n\n');
  return { naming: source.naming, tools, recipes, text };
}

export const get_guide: ReadHandler<'get_guide'> = async ({ caller }) => {
  let guide = guides.get(caller.scope);
  if (!guide) {
    guide = buildGuide(caller.scope);
    guides.set(caller.scope, guide);
  }
  return guide;
};
