/** Jest runs the TypeScript sources as native ES modules (NestJS 12 is ESM-only), compiled by SWC. */
const project = {
  testEnvironment: 'node',
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2023',
          keepClassNames: true,
        },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

/**
 * The test files that run a second time with the service behind a real PgBouncer in transaction pooling
 * (test/setup/pgbouncer.ts: each worker starts its own). Add a file here to run it there too.
 */
const THROUGH_PGBOUNCER = [
  'checkin',
  'checkin-cost',
  'interrupted-checkin',
  'sql-literals',
  'idempotency',
  'idempotency-race',
  'webhooks',
  'webhooks-ahead',
  'webhooks-crash',
  'webhooks-fairness',
  'events',
  'event-horizon',
  'scale-out',
  'gate',
  'gate-cost',
  'sessions',
  'panel-socket',
  'audit',
];

export default {
  projects: [
    { ...project, displayName: 'direct', testMatch: ['<rootDir>/test/**/*.spec.ts'] },
    {
      ...project,
      displayName: 'pgbouncer',
      testMatch: THROUGH_PGBOUNCER.map((name) => `<rootDir>/test/e2e/${name}.e2e.spec.ts`),
      setupFiles: ['<rootDir>/test/setup/through-pgbouncer.js'],
    },
  ],
  globalSetup: '<rootDir>/test/setup/global-setup.js',
  globalTeardown: '<rootDir>/test/setup/global-teardown.js',
  testTimeout: 60_000,
  // Three on two cores: the files wait on browsers, sockets and the database more than they compute. Measured on a
  // 2-core machine: 474, 488 and 507 s of Jest with three, 595 s with two, every test passing each time.
  maxWorkers: 3,
  // A worker is replaced once a test file leaves it above this. Without it a worker's heap grows with every file
  // it runs (700 MB, 1.2 GiB of RSS, by the end of a run), and tearing such a process down outlasted Jest's
  // 500 ms grace at exit ("A worker process has failed to exit gracefully"). With it the suite is no slower.
  workerIdleMemoryLimit: '400MB',
};
