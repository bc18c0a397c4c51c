// The layers of @vane/server (libs/server/src), checked by dependency-cruiser: see "Layers" in
// libs/server/README.md. Run by libs/server/test/layers.spec.ts and by
// `npx depcruise --config libs/server/.dependency-cruiser.cjs libs/server/src` from the repository root.
// From the top: the package root (index.ts, cli.ts: re-exports and the bin), commands/, testing/,
// server/ (the wiring), the edge (http/, console/, openapi/, ops/), auth/, the adapters (store/,
// postgres/, persistence/, seed/, sealing/, outbound/, fleet/, audit/), validation/, domain/, and the
// leaves (errors/, json/, logging/). A folder imports only folders below it, never one that imports it.

const SRC = '^libs/server/src/';
const folders = (names) => `${SRC}(${names.join('|')})/`;

const LEAVES = ['errors', 'json', 'logging'];
const DOMAIN = ['domain'];
const VALIDATION = ['validation'];
const ADAPTERS = ['store', 'postgres', 'persistence', 'seed', 'sealing', 'outbound', 'fleet', 'audit'];
const AUTH = ['auth'];
const EDGE = ['http', 'console', 'openapi', 'ops'];
const WIRING = ['server'];
const ENTRIES = ['commands', 'testing'];

/** A rule that `from` imports nothing in `forbidden` (folders of libs/server/src). */
const below = (name, from, forbidden, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: folders(from) },
  to: { path: folders(forbidden) },
});

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
      comment: 'errors/, json/ and logging/ are leaves: everything may import them, they import no other folder.',
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
    below(
      'validation-above-domain-only',
      VALIDATION,
      [...ADAPTERS, ...AUTH, ...EDGE, ...WIRING, ...ENTRIES],
      'validation/ reads input into the domain model: it imports the domain and the leaves only.',
    ),
    below(
      'adapters-below-auth-and-edge',
      ADAPTERS,
      [...AUTH, ...EDGE, ...WIRING, ...ENTRIES],
      'The adapters (file journal, PostgreSQL, sealing, outbound, fleet, audit) implement the domain ports; they import no auth, HTTP, console, operations or wiring.',
    ),
    below(
      'auth-below-edge',
      AUTH,
      [...EDGE, ...WIRING, ...ENTRIES],
      'auth/ (admin tokens, sessions, signing keys, trust verifiers, authorize) imports no HTTP, console, operations or wiring.',
    ),
    below(
      'edge-below-wiring',
      EDGE,
      [...WIRING, ...ENTRIES],
      'HTTP, console, OpenAPI and operations import no wiring.',
    ),
    below('wiring-below-entries', WIRING, ENTRIES, 'server/ wires the parts; commands/ and testing/ stand on it.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.spec\\.ts$', '/static/'] },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
