/**
 * The layers of src/ point one way: transports → tools → domain → platform → infrastructure,
 * with the generated contract (sdk/src/schema.ts, src/generated/) beneath them all and the
 * composition root (main.ts, node-services.ts, database.ts, demo/) above them all.
 * `npm run depcheck` holds these rules; `npm test` and so CI run it.
 */
const layer = (name) => `^src/${name}/`;
const ROOT = '^src/(main|node-services|database)\\.ts$|^src/demo/';

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
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
  },
};
