/** The MCP revision of the stateless era (per-request `_meta`, no handshake), named once for the endpoint's modules. */
export const MODERN_REVISION = '2026-07-28';
