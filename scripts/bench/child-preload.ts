/**
 * Loaded into every process the bench starts (`--import` for the service, imported by the floor servers).
 * - A bench killed before its own clean-up leaves its children to init: they notice the new parent and stop
 *   as on SIGTERM instead of holding their ports and database connections. The timer keeps nothing alive.
 * - Started with `--expose-gc`, SIGUSR2 runs a full garbage collection, so the bench reads memory that is
 *   held rather than garbage not yet collected.
 */
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
}, 500).unref();

const collect = (globalThis as { gc?: () => void }).gc;
if (collect) process.on('SIGUSR2', () => collect());
