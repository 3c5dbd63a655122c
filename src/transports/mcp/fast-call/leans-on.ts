/**
 * The version of the MCP SDK the fast call was written and measured against. A test
 * (test/platform/fast-path-versions.unit.test.ts) fails when the installed one differs: the
 * `Transport` interface and the server's fallback handler are public, but how the server drives a
 * transport (one message in, its answer out through `send`) was measured on this one.
 */
export const FAST_CALL_MEASURED_ON = { '@modelcontextprotocol/sdk': '1.32.2' } as const;
