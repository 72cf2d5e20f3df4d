// The `pgbouncer` project of jest.config.js: its test files' apps reach PostgreSQL through a PgBouncer in transaction
// pooling that each worker starts (test/setup/pgbouncer.ts).
process.env.GATE_TEST_PGBOUNCER = '1';
