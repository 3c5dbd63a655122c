/**
 * The layers of src/ point one way: transports → tools → domain → platform → infrastructure,
 * with the generated contract (sdk/src/schema.ts, src/generated/) beneath them all and the
 * composition root (main.ts, node-services.ts, database.ts, demo/) above them all.
 * `npm run depcheck` holds these rules; `npm test` and so CI run it.
 */
const layer = (name) => `^src/${name}/`;
const ROOT = '^src/(main|node-services|database)\\.ts$|^src/demo/';
/** Where a transport's framework may be imported: the transports, and the root that starts the server. */
const TRANSPORTS_AND_ROOT = '^src/transports/|^src/(main|node-services)\\.ts$';
/**
 * The MCP SDK's server side: version 1's servers, transports and auth router (apart from its error
 * classes and types, which the platform's OAuth uses), version 2's server package, and MCP Apps.
 */
const MCP_SDK_SERVER =
  '(^|/)node_modules/@modelcontextprotocol/(sdk/(dist/(cjs|esm)/)?server/(?!auth/(errors|types|provider)(\\.|/))|server/|ext-apps/)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles, in any layer.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'infrastructure-is-lowest',
      severity: 'error',
      comment: 'Infrastructure (db, files, images, programs) knows no layer above it.',
      from: { path: layer('infrastructure') },
      to: { path: `${layer('(platform|domain|tools|transports)')}|${ROOT}` },
    },
    {
      name: 'platform-below-domain',
      severity: 'error',
      comment:
        'The platform is handed what it runs (the handler table, the services); it never imports them.',
      from: { path: layer('platform') },
      to: { path: `${layer('(domain|tools|transports)')}|${ROOT}` },
    },
    {
      name: 'domain-below-tools',
      severity: 'error',
      comment: 'The domain serves the tools; it never calls them.',
      from: { path: layer('domain') },
      to: { path: `${layer('(tools|transports)')}|${ROOT}` },
    },
    {
      name: 'tools-below-transports',
      severity: 'error',
      comment: 'Tools are called by transports and never know which one.',
      from: { path: layer('tools') },
      to: { path: `${layer('transports')}|${ROOT}` },
    },
    {
      name: 'transports-below-root',
      severity: 'error',
      comment: 'Only the composition root starts the node and wires its services.',
      from: { path: layer('transports') },
      to: { path: ROOT },
    },
    {
      name: 'express-only-in-transports',
      severity: 'error',
      comment:
        'Express (and its types) belongs to the transports: below them, functions take what a request carries (a key, an address) and give what the answer needs.',
      from: { pathNot: TRANSPORTS_AND_ROOT },
      to: { path: '(^|/)node_modules/(@types/)?express(/|$)' },
    },
    {
      name: 'mcp-server-only-in-transports',
      severity: 'error',
      comment:
        "The MCP SDK's servers, transports and auth router belong to the transports; the platform may use its OAuth error classes and types only.",
      from: { pathNot: TRANSPORTS_AND_ROOT },
      to: { path: MCP_SDK_SERVER },
    },
    {
      name: 'domain-calls-no-tools',
      severity: 'error',
      comment:
        'The domain reads through domain functions, never through the operation table or the tool list (by tool name), nor the tool table.',
      from: { path: layer('domain') },
      to: { path: '^src/generated/(operations|mcp-tools)\\.ts$|^src/tools/' },
    },
    {
      name: 'mcp-tool-list-above-platform',
      severity: 'error',
      comment:
        'The MCP tool list (generated/mcp-tools) is for MCP and the guide: the platform and below do not know MCP tools.',
      from: { path: layer('(platform|infrastructure)') },
      to: { path: '^src/generated/mcp-tools\\.ts$' },
    },
    {
      name: 'transports-share-below-http',
      severity: 'error',
      comment:
        'What HTTP, MCP, the pages and file links share lives in transports/shared (or lower); MCP, the pages, files and OAuth do not reach into transports/http for it. Only the app in transports/http assembles them.',
      from: { path: '^src/transports/(mcp|pages|files|oauth|shared|cli)/' },
      to: { path: '^src/transports/http/' },
    },
    {
      name: 'one-contract',
      severity: 'error',
      comment:
        "The service takes the SDK's generated types (sdk/src/schema.ts); only the admin CLI, a client of the API, uses the SDK itself.",
      from: { path: '^src/', pathNot: '^src/transports/cli/' },
      to: { path: '^sdk/', pathNot: '^sdk/src/schema\\.ts$' },
    },
    {
      name: 'generated-is-contract',
      severity: 'error',
      comment: 'Generated files depend on nothing of ours.',
      from: { path: layer('generated') },
      to: { path: '^src/(?!generated/)' },
    },
    {
      name: 'public-interfaces-only',
      severity: 'error',
      comment:
        "knex's and pg's internals (their lib/ folders) are not interfaces: a minor release may change them. Fast paths use what the packages export (src/infrastructure/db/fast-transaction/README.md).",
      from: { path: '^src/' },
      to: { path: 'node_modules/knex/lib/|node_modules/pg/lib/(?!index\\.js$)' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  },
};
