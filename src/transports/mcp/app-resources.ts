/**
 * The MCP Apps' resources on the endpoint: resources/list names the apps' pages, resources/read
 * answers one (an unknown URI is a protocol error, -32002, as the MCP specification has it).
 */
import { ErrorCode, McpError, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { type McpApp, mcpApps } from './apps';

/** The error code the MCP specification gives a resource that is not found. */
const RESOURCE_NOT_FOUND = -32002;

export interface AppResources {
  list(): Resource[];
  read(uri: string): ReturnType<McpApp['read']>;
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
    read(uri) {
      const app = byUri.get(uri);
      if (!app) {
        if (typeof uri !== 'string')
          throw new McpError(ErrorCode.InvalidParams, 'resources/read needs params.uri.');
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
      }
      return app.read();
    },
  };
}
