/**
 * The MCP Apps' resources on the endpoint: what resources/list names (the apps' pages) and what
 * resources/read answers for one of them; the endpoint answers an unknown URI as its SDK words
 * "resource not found" (RESOURCE_NOT_FOUND).
 */
import { type McpApp, mcpApps } from './apps';

/** The error code the MCP specification gives a resource that is not found. */
export const RESOURCE_NOT_FOUND = -32002;

export interface ListedResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

export interface AppResources {
  list(): ListedResource[];
  /** The page of `uri`, or undefined when no app has that address. */
  read(uri: string): ReturnType<McpApp['read']> | undefined;
}

export function appResources(publicUrl: string): AppResources {
  const apps = mcpApps(publicUrl);
  const byUri = new Map(apps.map((app) => [app.uri, app]));
  return {
    list: () =>
      apps.map(({ uri, name, title, description, mimeType }) => ({
        uri,
        name,
        title,
        description,
        mimeType,
      })),
    read: (uri) => byUri.get(uri)?.read(),
  };
}
