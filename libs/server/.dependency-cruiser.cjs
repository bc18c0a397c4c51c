// The layers of @vane/server (libs/server/src), checked by dependency-cruiser: see "The server's layers" in
// docs/development.md. Run by libs/server/test/layers.spec.ts and by
// `npx depcruise --config libs/server/.dependency-cruiser.cjs libs/server/src` from the repository root.
// The root (index.ts re-exports, cli.ts the bin) stands above every folder and no folder imports it; the
// folders stand in LAYERS below, from the top. No folder imports a folder that imports it, the domain imports
// only the leaves and no networking, and each layer imports nothing of the layers above it.

const SRC = '^libs/server/src/';
const folders = (names) => `${SRC}(${names.join('|')})/`;

/** The layers from the top: a folder imports only folders of its own layer or of the layers below it. */
const LAYERS = [
  { name: 'entries', folders: ['commands', 'testing', 'config'], what: 'the CLI, its options and the testing helpers' },
  { name: 'wiring', folders: ['server'], what: 'the start of a server: it opens the store and passes the adapters in' },
  { name: 'edge', folders: ['console', 'openapi', 'http', 'ops'], what: 'HTTP, the console, OpenAPI and operations' },
  { name: 'admin', folders: ['admin'], what: 'the admin operations over the domain' },
  { name: 'auth', folders: ['auth'], what: 'admin tokens, sessions, signing keys, trust verifiers, authorize' },
  {
    name: 'adapters',
    folders: ['postgres', 'persistence', 'seed', 'sealing', 'outbound', 'fleet'],
    what: 'the file journal, PostgreSQL, the seed, sealing, outbound requests and the fleet',
  },
  { name: 'validation', folders: ['validation'], what: 'input read into the domain model' },
  { name: 'domain', folders: ['domain'], what: 'the model, revisions, A/B bucketing, schedules, rate limits, ports' },
  {
    name: 'leaves',
    folders: ['errors', 'json', 'observability'],
    what: 'errors, JSON helpers, the logger and readiness',
  },
];
const LEAVES = LAYERS[LAYERS.length - 1].folders;
const DOMAIN = ['domain'];

/** For each layer but the top one: it imports nothing of the layers above it. */
const layerRules = LAYERS.slice(1).map((layer, index) => ({
  name: `${layer.name}-below-${LAYERS[index].name}`,
  comment: `${layer.folders.join('/, ')}/ (${layer.what}) import nothing of the layers above them.`,
  severity: 'error',
  from: { path: folders(layer.folders) },
  to: { path: folders(LAYERS.slice(0, index + 1).flatMap((above) => above.folders)) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'No folder of libs/server/src imports a folder that imports it (directly or through others).',
      severity: 'error',
      scope: 'folder',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'root-is-the-entry',
      comment:
        'The root of libs/server/src holds the package entry (index.ts re-exports, cli.ts); no folder imports it.',
      severity: 'error',
      from: { path: `${SRC}[^/]+/` },
      to: { path: `${SRC}[^/]+\\.ts$` },
    },
    {
      name: 'leaves-import-no-folder',
      comment: 'errors/, json/ and observability/ are leaves: everything may import them, they import no other folder.',
      severity: 'error',
      from: { path: `${SRC}(${LEAVES.join('|')})/` },
      to: { path: SRC, pathNot: `${SRC}$1/` },
    },
    {
      name: 'domain-imports-only-leaves',
      comment:
        'The domain (model, revisions, A/B bucketing, schedules, rate limits, its ports) imports no store, no sealing, no HTTP, no other folder but the leaves.',
      severity: 'error',
      from: { path: folders(DOMAIN) },
      to: { path: SRC, pathNot: folders([...DOMAIN, ...LEAVES]) },
    },
    {
      name: 'domain-no-networking',
      comment: 'The domain declares ports (change log, sealer, clock, outbound fetch); networking lives at the edge.',
      severity: 'error',
      from: { path: folders(DOMAIN) },
      to: { path: '^(node:)?(http|https|http2|net|tls|dgram|dns)$', dependencyTypesNot: ['local'] },
    },
    {
      name: 'every-folder-has-a-layer',
      comment: 'A new folder of libs/server/src is placed in LAYERS before it imports anything.',
      severity: 'error',
      from: { path: `${SRC}[^/]+/`, pathNot: folders(LAYERS.flatMap((layer) => layer.folders)) },
      to: { path: SRC },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.spec\\.ts$', '/static/'] },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
