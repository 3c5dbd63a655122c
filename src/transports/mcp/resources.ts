/**
 * MCP resources, dispatched by URI to the scheme that owns it: the MCP Apps' `ui://` pages
 * (./app-resources.ts) and `jms://jobs/…` (./job-resources.ts)
 * (a new scheme is an entry in SCHEMES). Each scheme answers its
 * templates, its part of `resources/list`, its reads and whether a `subscriptions/listen` may
 * name a URI of it. Reads are private to the caller and short-lived; the templates are the same
 * for everyone.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type CacheHint,
  type Server,
} from '@modelcontextprotocol/server';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';
import { appScheme } from './app-resources';
import { jobResources } from './job-resources';
import type { ResourceScheme } from './resource-scheme';

const SCHEMES: ResourceScheme[] = [appScheme, jobResources];
/** How many URIs one listen may name: each is checked before the stream opens. */
const MAX_SUBSCRIBED_URIS = 100;

/** A read answers the record as it is now: a client may keep it a few seconds, or until a subscription says it changed. */
export const RESOURCE_CACHE_HINTS: Record<
  'resources/read' | 'resources/list' | 'resources/templates/list',
  CacheHint
> = {
  'resources/read': { ttlMs: 5_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 5_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 5 * 60_000, cacheScope: 'public' },
};

interface ListPlace {
  scheme: string;
  cursor: string | null;
}

function encodePlace(place: ListPlace): string {
  return Buffer.from(JSON.stringify(place)).toString('base64url');
}

function decodePlace(cursor: string): ListPlace {
  try {
    const place = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as ListPlace;
    if (SCHEMES.some((scheme) => scheme.name === place.scheme && scheme.list)) return place;
  } catch {
    // answered below
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'The cursor is not one resources/list gave out.');
}

/** One scheme's page at a time; the cursor says which scheme and where in it. */
async function listResources(deps: Deps, caller: Caller, cursor: string | undefined) {
  const listing = SCHEMES.filter((scheme) => scheme.list);
  const place = cursor ? decodePlace(cursor) : { scheme: listing[0]?.name ?? '', cursor: null };
  const at = listing.findIndex((scheme) => scheme.name === place.scheme);
  if (at < 0) return { resources: [] };
  const page = await listing[at].list!(deps, caller, place.cursor ?? undefined);
  const next: ListPlace | null = page.nextCursor
    ? { scheme: place.scheme, cursor: page.nextCursor }
    : listing[at + 1]
      ? { scheme: listing[at + 1].name, cursor: null }
      : null;
  return { resources: page.resources, ...(next ? { nextCursor: encodePlace(next) } : {}) };
}

function schemeOf(uri: string): ResourceScheme | undefined {
  return SCHEMES.find((scheme) => scheme.owns(uri));
}

/**
 * resources/list, resources/templates/list and resources/read on a server built for one request.
 * A scheme may give a read cache hints of its own (2026-07-28); a 2025 answer carries none.
 */
export function addResourceHandlers(
  server: Server,
  deps: Deps,
  caller: Caller,
  era: 'legacy' | 'modern',
): void {
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: SCHEMES.flatMap((scheme) => scheme.templates),
  }));
  server.setRequestHandler('resources/list', async (request) =>
    listResources(deps, caller, request.params?.cursor),
  );
  server.setRequestHandler('resources/read', async (request) => {
    const { uri } = request.params;
    const scheme = schemeOf(uri);
    if (!scheme) throw new ResourceNotFoundError(uri);
    const { ttlMs, cacheScope, ...read } = await scheme.read(deps, caller, uri);
    return era === 'modern' ? { ...read, ...(ttlMs === undefined ? {} : { ttlMs, cacheScope }) } : read;
  });
}

/**
 * Checks every URI a `subscriptions/listen` names before the stream opens: the bus tells every
 * stream of the URIs it names, so a URI the caller may not read must never be let through.
 */
export async function checkSubscriptions(deps: Deps, caller: Caller, uris: string[]): Promise<void> {
  if (uris.length > MAX_SUBSCRIBED_URIS)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `A listen may name at most ${MAX_SUBSCRIBED_URIS} resources; it named ${uris.length}.`,
    );
  for (const uri of new Set(uris)) {
    const check = schemeOf(uri)?.checkSubscription;
    if (!check)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot subscribe to ${uri}: it does not change.`,
        {
          uri,
        },
      );
    await check(deps, caller, uri);
  }
}
