/**
 * The MCP Apps' pages as a resource scheme (`ui://jobs/…`, ./resources.ts dispatches to it): the
 * pages are listed first, and read as the apps build them (./apps). They are the same for every
 * caller and change only with a release: a read may be kept five minutes and shared, unlike the
 * job resources' private five seconds. Built once per public URL.
 */
import { ResourceNotFoundError, type ReadResourceResult, type Resource } from '@modelcontextprotocol/server';
import { type McpApp, mcpApps } from './apps';
import type { ResourceScheme } from './resource-scheme';

const PAGE_CACHE = { ttlMs: 5 * 60_000, cacheScope: 'public' } as const;

interface BuiltApps {
  listed: Resource[];
  byUri: Map<string, McpApp>;
}

const built = new Map<string, BuiltApps>();

function appsOf(publicUrl: string): BuiltApps {
  let apps = built.get(publicUrl);
  if (!apps) {
    const all = mcpApps(publicUrl);
    apps = {
      listed: all.map(({ uri, name, title, description, mimeType }) => ({
        uri,
        name,
        title,
        description,
        mimeType,
      })),
      byUri: new Map(all.map((app) => [app.uri, app])),
    };
    built.set(publicUrl, apps);
  }
  return apps;
}

export const appScheme: ResourceScheme = {
  name: 'ui',
  owns: (uri) => uri.startsWith('ui://'),
  templates: [],
  list: async (deps) => ({ resources: appsOf(deps.config.publicUrl).listed }),
  read: async (deps, _caller, uri): Promise<ReadResourceResult> => {
    const app = appsOf(deps.config.publicUrl).byUri.get(uri);
    if (!app) throw new ResourceNotFoundError(uri);
    return { ...app.read(), ...PAGE_CACHE };
  },
};
