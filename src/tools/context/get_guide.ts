/**
 * The live guide, made from the spec itself: the naming rules and recipes of `info.x-guide`, and
 * the names of the tools this key may call, by toolset. A recipe shows only when all of its tools
 * exist. Tool descriptions are not repeated here: the tool list and the spec carry them.
 */
import spec from '../../generated/openapi.json';
import { operations, type OperationSpec } from '../../generated/operations';
import { toolsets } from '../../generated/mcp-tools';
import type { Output } from '../../platform/handler';
import type { ReadHandler } from '../tool';

type Guide = Output<'get_guide'>;
type Scope = 'read' | 'write';

interface GuideSource {
  naming: string[];
  recipes: { title: string; tools: string[]; steps: string }[];
}

const source = (spec.info as unknown as { 'x-guide': GuideSource })['x-guide'];
const guides = new Map<Scope, Guide>();

function usable(op: OperationSpec, scope: Scope): boolean {
  return op.mcp && (op.scope === 'read' || (op.scope === 'write' && scope === 'write'));
}

function buildGuide(scope: Scope): Guide {
  const ops = Object.values(operations).filter((op) => usable(op, scope));
  const names = new Set(ops.map((op) => op.name));
  const sets = toolsets
    .map((set) => ({
      name: set.name,
      description: set.description,
      tools: ops
        .filter((op) => op.tag === set.tag)
        .map((op) => op.name)
        .sort(),
    }))
    .filter((set) => set.tools.length > 0);
  const recipes = source.recipes.filter((recipe) => recipe.tools.every((tool) => names.has(tool)));
  return { naming: source.naming, toolsets: sets, recipes };
}

export const get_guide: ReadHandler<'get_guide'> = async ({ caller }) => {
  let guide = guides.get(caller.scope);
  if (!guide) {
    guide = buildGuide(caller.scope);
    guides.set(caller.scope, guide);
  }
  return guide;
};
