/**
 * The version of the MCP SDK the fast call was written and measured against. A test
 * (test/platform/fast-path-versions.unit.test.ts) fails when the installed one differs: the
 * interfaces it uses are public, but how the server drives a transport (one message in, its
 * answer out through `send`) and what the per-request transport costs were measured on this one.
 */
export const FAST_CALL_MEASURED_ON = { '@modelcontextprotocol/server': '2.4.0' } as const;
