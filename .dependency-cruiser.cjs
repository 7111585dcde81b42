// The boundaries between Marginal's capabilities (docs/decisions/0103-boundaries-that-hold.md,
// docs/architecture.md "Boundaries"). `npm run boundaries` checks them over the production folders;
// test/, bench/ and scripts/ (the CLI and tools) are not cruised: they may reach anything.
//
// - core/ and schemas/ are the shared kernel: they import no capability.
// - No folder cycles between capabilities.
// - A capability never imports another capability's internals: its HTTP layer (controllers,
//   views, tsoa's generated routes), its storage (*.store.ts, *.queries.ts), or anything under
//   api/ (the read endpoints are a leaf). Everything else it holds — its rules, services, workers
//   and types — is its public surface.
// The process wiring ({api,ingest,processor}/{component,main,thread}.ts) starts capabilities in one
// process, so it is left out: ingest's component starts the OTLP receiver, which feeds ingest.

/** Top-level folders that are capabilities (console/ and sdks/ are their own packages). */
const CAPABILITIES = ['ingest', 'otlp', 'processor', 'pricing', 'revenue', 'alerts', 'people', 'reconciliation', 'api'];
const ANY_CAPABILITY = `^(${CAPABILITIES.join('|')})/`;

/** What a capability keeps to itself, as a path pattern under its folder. */
const INTERNALS = [
  '[.]controller[.]ts$', // HTTP mapping
  '-views?[.]ts$', // wire shapes of its HTTP mapping
  '[.]store[.]ts$', // storage (control-plane SQL)
  '[.]queries[.]ts$', // storage (lake SQL)
];

/**
 * Known debt (ADR 0103): reads of another capability's store that wait for a read function in
 * that capability's public surface. Each line allows exactly one import; remove it when fixed.
 */
const KNOWN_STORE_READS = {
  'api/lake/prepare-reads.ts': ['ingest/ingest-ledger-counts.store.ts'],
  'api/cost-data/cost-data.service.ts': ['ingest/ingest-ledger-counts.store.ts'],
  'api/sessions/sessions.service.ts': ['otlp/structural-spans.store.ts'],
  'processor/repricing.ts': ['pricing/rate-cards.store.ts'],
  'processor/repricing-jobs.ts': ['pricing/repricings.store.ts'],
};

const exactly = (file) => `^${file.replaceAll('.', '[.]')}$`;
const internalsOfOthers = INTERNALS.map((p) => `${ANY_CAPABILITY}.*${p}`);

/** A capability never imports another's internals; the known reads above are the only exceptions. */
const noCapabilityInternals = [
  {
    from: { path: `^(${CAPABILITIES.join('|')})/`, pathNot: Object.keys(KNOWN_STORE_READS).map(exactly) },
    to: { path: internalsOfOthers, pathNot: '^$1/' },
  },
  ...Object.entries(KNOWN_STORE_READS).map(([file, allowed]) => ({
    // The capability is captured as $1 here too, so its own internals stay allowed.
    from: { path: exactly(file).replace(/^\^([^/]+)/, '^($1)') },
    to: { path: internalsOfOthers, pathNot: ['^$1/', ...allowed.map(exactly)] },
  })),
].map((rule) => ({
  name: 'no-capability-internals',
  comment: "Another capability's controllers, views and stores are its internals: call its service, rule or type instead.",
  severity: 'error',
  ...rule,
}));

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-capability',
      comment: 'core/ and schemas/ are shared by every capability, so they may not depend on one (nor on scripts, tests or benchmarks).',
      severity: 'error',
      from: { path: '^(core|schemas)/' },
      to: { path: `^(${[...CAPABILITIES, 'scripts', 'test', 'bench', 'console', 'sdks'].join('|')})/` },
    },
    {
      name: 'no-cycles-between-capabilities',
      comment:
        'Two capabilities may not import each other, directly or through others: one of them names the other only through a slot it declares (e.g. revenue/revenue-moved.ts).',
      severity: 'error',
      scope: 'folder',
      from: { path: `^(${CAPABILITIES.join('|')})$` },
      to: { circular: true },
    },
    {
      name: 'api-is-a-leaf',
      comment:
        'The read endpoints are not a shared kernel: what other capabilities need from them belongs in core/ or in its owning capability.',
      severity: 'error',
      from: { path: ANY_CAPABILITY, pathNot: '^api/' },
      to: { path: '^api/' },
    },
    ...noCapabilityInternals,
  ],
  options: {
    // Type-only imports count: a type is part of what a capability depends on.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)generated/', '^(api|ingest|processor)/(component|main|thread)[.]ts$'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
