/**
 * Layer rules, checked by `npm test` (`npm run lint:layers`; docs/architecture.md): no import cycle between folders
 * or files, `src/common` and `src/config` import no feature module, features never reach into the realtime surface,
 * each module of src/modules (counted whole, with its subfolders) imports only modules of lower tiers, and no module
 * imports another's repository.
 */

/**
 * The modules of src/modules, lowest tier first. A module imports only modules of lower tiers (never one of its
 * own tier): so there is no loop between modules, whichever of their files the imports name. A new module gets
 * a tier here, or every one of its imports is refused.
 */
const TIERS = [
  ['drivers', 'idempotency'],
  ['auth'],
  ['accounts', 'audit', 'health', 'metrics'],
  ['events', 'layouts', 'users'],
  ['feed'],
  ['records'],
  ['capacity', 'trips'],
  ['appointments', 'reports'],
  ['tickets'],
  ['checkin', 'driver-app', 'driver-tokens', 'bookings', 'webhooks'],
  ['gate'],
];

const tierRules = TIERS.flatMap((tier, index) => {
  const lower = TIERS.slice(0, index).flat();
  return tier.map((module) => ({
    name: 'modules-import-lower-tiers',
    severity: 'error',
    comment: `${module} (tier ${index}) imports ${lower.length ? `only ${lower.join(', ')}` : 'no other module'}.`,
    from: { path: `^src/modules/${module}/` },
    to: { path: '^src/modules/[^/]+/', pathNot: `^src/modules/(${[module, ...lower].join('|')})/` },
  }));
});

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Folders depend on each other in one direction only.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-file-cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'common-is-a-base',
      severity: 'error',
      comment: 'Shared plumbing knows no feature.',
      from: { path: '^src/(common|config)/' },
      to: { path: '^src/(modules|realtime)/' },
    },
    {
      name: 'modules-do-not-use-realtime',
      severity: 'error',
      comment: 'The realtime surface depends on the features, not the reverse.',
      from: { path: '^src/modules/' },
      to: { path: '^src/realtime/' },
    },
    ...tierRules,
    {
      name: 'modules-have-a-tier',
      severity: 'error',
      comment: 'Every module of src/modules is placed in TIERS.',
      from: { path: '^src/modules/', pathNot: `^src/modules/(${TIERS.flat().join('|')})/` },
      to: {},
    },
    {
      name: 'no-foreign-repositories',
      severity: 'error',
      comment: "A module reaches another through the services it exports, never through its repository's SQL.",
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/.*[.]repository[.]ts$',
        pathNot: ['^src/modules/$1/', '^src/modules/records/records[.]repository[.]ts$'],
      },
    },
    {
      name: 'records-repository-is-a-base',
      severity: 'error',
      comment:
        "The records engine's RecordsRepository is the base class of the trips' and appointments' repositories; only repositories extend it.",
      from: { path: '^src/modules/', pathNot: ['^src/modules/records/', '[.]repository[.]ts$'] },
      to: { path: '^src/modules/records/records[.]repository[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
