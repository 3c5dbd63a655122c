/**
 * MCP Apps (the extension io.modelcontextprotocol/ui): pages a host shows in the conversation
 * for a few tools. A tool names its app in `_meta.ui.resourceUri`; the host reads that `ui://`
 * resource and shows it in a sandboxed frame, and the page talks to the service only through the
 * host (README.md beside this file). Hosts without apps see the tools as before: apps add `_meta`
 * to tools and three resources, nothing else.
 */
import { APP_MIME_TYPE, type AppPage, appHtml } from './app-shell';
import { dryingLogPage } from './drying-log';
import { packetReviewPage } from './packet-review';
import { photosPage } from './photos';

/** The extension's key in a server's capabilities (`extensions`), and what this server declares under it. */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
export const APPS_EXTENSION = { mimeTypes: [APP_MIME_TYPE] };

export interface AppResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta: { ui: { csp: { connectDomains: string[]; resourceDomains: string[] }; prefersBorder: boolean } };
}

export interface McpApp {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** The tools whose answers the app shows. */
  toolNames: string[];
  /** The `resources/read` answer: the page, with a nonce made for this read. */
  read(): { contents: AppResourceContents[] };
}

interface AppSpec {
  uri: string;
  name: string;
  title: string;
  description: string;
  toolNames: string[];
  page(serviceOrigin: string): AppPage;
}

const SPECS: AppSpec[] = [
  {
    uri: 'ui://jobs/packet-review',
    name: 'packet-review',
    title: 'Claim packet review',
    description:
      "The claim's readiness findings, the packet's documents, and Build: the estimate becomes final only after the person confirms.",
    toolNames: ['check_claim_readiness', 'export_pdf'],
    page: () => packetReviewPage(),
  },
  {
    uri: 'ui://jobs/drying-log',
    name: 'drying-log',
    title: 'Drying log',
    description:
      'GPP chart per area with outside air and goal, materials against their goals by day, equipment against plan.',
    toolNames: ['get_drying_log'],
    page: () => dryingLogPage(),
  },
  {
    uri: 'ui://jobs/photos',
    name: 'photos',
    title: 'Job photos',
    description: "The job's photos by room with captions, and adding photos into a room.",
    toolNames: ['view_photos', 'list_job_photos'],
    page: photosPage,
  },
];

/** The apps as this service serves them: `publicUrl` is where the pages' pictures come from. */
export function mcpApps(publicUrl: string): McpApp[] {
  const origin = new URL(publicUrl).origin;
  return SPECS.map(({ page, ...spec }) => {
    // Built once (its script read from disk here); each read only adds a fresh nonce.
    const built = page(origin);
    return {
      ...spec,
      mimeType: APP_MIME_TYPE,
      read: () => ({
        contents: [
          {
            uri: spec.uri,
            mimeType: APP_MIME_TYPE,
            text: appHtml(built).html,
            _meta: {
              ui: {
                csp: { connectDomains: [], resourceDomains: built.imageOrigins ?? [] },
                prefersBorder: true,
              },
            },
          },
        ],
      }),
    };
  });
}

const APP_OF_TOOL = new Map(SPECS.flatMap((spec) => spec.toolNames.map((tool) => [tool, spec.uri])));

/** A tool's `_meta.ui`, for tools/list; undefined for a tool without an app. */
export function toolUiMeta(toolName: string): { resourceUri: string } | undefined {
  const resourceUri = APP_OF_TOOL.get(toolName);
  return resourceUri ? { resourceUri } : undefined;
}
