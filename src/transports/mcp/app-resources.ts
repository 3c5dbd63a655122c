/**
 * The MCP Apps' resources on the endpoint: what resources/list names (the apps' pages) and what
 * resources/read answers for one of them (undefined for an address no app has: the server
 * answers it as its SDK words "resource not found"). Built once per public URL, as every
 * request's server asks for them.
 */
import { type McpApp, mcpApps } from './apps';

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

const built = new Map<string, AppResources>();

export function appResources(publicUrl: string): AppResources {
  let resources = built.get(publicUrl);
  if (!resources) {
    const apps = mcpApps(publicUrl);
    const byUri = new Map(apps.map((app) => [app.uri, app]));
    const listed = apps.map(({ uri, name, title, description, mimeType }) => ({
      uri,
      name,
      title,
      description,
      mimeType,
    }));
    resources = { list: () => listed, read: (uri) => byUri.get(uri)?.read() };
    built.set(publicUrl, resources);
  }
  return resources;
}
