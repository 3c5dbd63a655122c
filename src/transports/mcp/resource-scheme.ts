/** What one URI scheme of MCP resources answers (./resources.ts dispatches to it). */
import type { ReadResourceResult, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';

export interface ResourceScheme {
  /** Names the scheme in `resources/list` cursors. */
  name: string;
  owns(uri: string): boolean;
  templates: ResourceTemplateType[];
  list?(
    deps: Deps,
    caller: Caller,
    cursor: string | undefined,
  ): Promise<{ resources: Resource[]; nextCursor?: string }>;
  read(deps: Deps, caller: Caller, uri: string): Promise<ReadResourceResult>;
  /** Throws a ProtocolError when a listen may not name the URI; absent: the scheme's resources do not change. */
  checkSubscription?(deps: Deps, caller: Caller, uri: string): Promise<void>;
}
