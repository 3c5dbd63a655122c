/**
 * Which tools an MCP client is shown: a client may ask for some toolsets only
 * (`X-MCP-Toolsets: jobs,estimates` or `?toolsets=jobs,estimates` on the MCP URL) and for
 * read-only tools (`X-MCP-Readonly: true` or `?readonly=true`). The context toolset (the guide,
 * who the key is) is always there; a read key is shown read tools whatever it asks for.
 */
import type { Request } from 'express';
import { ALWAYS_ON_TOOLSET, toolsets, type McpToolDefinition } from '../../generated/mcp-tools';
import { ApiError } from '../../platform/errors';
import type { Caller } from '../../platform/caller';

export interface ToolSelection {
  /** null: every toolset. */
  toolsets: Set<string> | null;
  readOnly: boolean;
  /** What the client asked for, in words, for a refused call. */
  describe(): string;
}

const TOOLSET_NAMES = toolsets.map((set) => set.name);

export function selectionOf(req: Request): ToolSelection {
  const asked = askedFor(req, 'x-mcp-toolsets', 'toolsets');
  const readOnly = askedFor(req, 'x-mcp-readonly', 'readonly');
  const chosen = asked ? toolsetsOf(asked) : null;
  const only = readOnly ? readOnlyOf(readOnly) : false;
  return {
    toolsets: chosen,
    readOnly: only,
    describe: () =>
      [
        chosen ? `the toolsets ${[...chosen].join(', ')} (X-MCP-Toolsets)` : null,
        only ? 'read-only tools (X-MCP-Readonly)' : null,
      ]
        .filter(Boolean)
        .join(' and '),
  };
}

/** An assistant's grant may name toolsets: its client sees no more than those, whatever it asks. */
export function withinGrant(selection: ToolSelection, caller: Caller): ToolSelection {
  const granted = caller.grant?.toolsets;
  if (!granted) return selection;
  const toolsets = new Set(
    granted.filter((name) => selection.toolsets === null || selection.toolsets.has(name)),
  );
  const grantWords = `the toolsets approved for this assistant (${granted.join(', ')})`;
  return {
    ...selection,
    toolsets,
    describe: () => [selection.describe(), grantWords].filter(Boolean).join(' and '),
  };
}

export function offeredTo(def: McpToolDefinition, caller: Caller, selection: ToolSelection): boolean {
  if (def.scope === 'write' && (caller.scope !== 'write' || selection.readOnly)) return false;
  return (
    selection.toolsets === null || def.toolset === ALWAYS_ON_TOOLSET || selection.toolsets.has(def.toolset)
  );
}

interface Asked {
  value: string;
  /** Where it was given, as a field path of a problem. */
  where: string;
}

/** The header, else the query parameter of the MCP URL. */
function askedFor(req: Request, header: string, query: string): Asked | null {
  const fromHeader = req.get(header);
  if (fromHeader !== undefined) return { value: fromHeader, where: `/headers/${header}` };
  const fromQuery = req.query[query];
  if (fromQuery === undefined) return null;
  return { value: typeof fromQuery === 'string' ? fromQuery : String(fromQuery), where: `/query/${query}` };
}

function toolsetsOf({ value, where }: Asked): Set<string> | null {
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return null;
  const unknown = names.filter((name) => !TOOLSET_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new ApiError(
      400,
      'invalid_request',
      `Unknown toolset ${unknown.map((name) => `"${name}"`).join(', ')}. Valid: ${TOOLSET_NAMES.join(', ')} (or all).`,
      {
        errors: [
          { path: where, message: `must be toolset names separated by commas: ${TOOLSET_NAMES.join(', ')}` },
        ],
        validValues: [...TOOLSET_NAMES, 'all'],
      },
    );
  }
  return new Set(names);
}

function readOnlyOf({ value, where }: Asked): boolean {
  const normalized = value.trim().toLowerCase();
  if (normalized === 'true' || normalized === '1') return true;
  if (normalized === 'false' || normalized === '0' || normalized === '') return false;
  throw new ApiError(400, 'invalid_request', 'readonly must be true or false.', {
    errors: [{ path: where, message: 'must be true or false' }],
  });
}
