/**
 * Each operation's merged input schema (what an MCP call's arguments must be) and its success
 * answer's schema, with every `$ref` resolved: read from the spec by the same code that generates
 * the MCP tool list, since the run-time operation table carries no schemas.
 */
import spec from '../../src/generated/openapi.json';
import { describeOperations } from '../../codegen/operation-table';
import { dereference } from './fuzz/operations';

export type JsonSchema = Record<string, unknown>;
export interface OperationSchemas {
  inputSchema: JsonSchema & { required?: string[] };
  outputSchema: JsonSchema | null;
}

let loaded: Map<string, OperationSchemas> | undefined;

export function operationSchemas(): Map<string, OperationSchemas> {
  loaded ??= new Map(
    describeOperations(dereference(spec, spec) as { paths: Record<string, Record<string, unknown>> }).map(
      ({ spec: entry }) => [String(entry.name), entry as unknown as OperationSchemas],
    ),
  );
  return loaded;
}
