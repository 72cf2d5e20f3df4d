import { createApp } from './app.factory.js';
import { createLogger } from './common/logging/logger.js';
import { ConfigError, loadConfig } from './config/config.js';
import { DataDirLockedError } from './database/data-dir-lock.js';
import { ShutdownState } from './modules/health/shutdown-state.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let gate;
  try {
    gate = await createApp(config, logger);
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      logger.fatal(error.message);
      process.exit(75);
    }
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
  const { app, database } = gate;
  await app.listen(config.port);
  const base = `http://localhost:${config.port}`;
  const store = database.embedded ? `embedded (${config.dataDir})` : 'postgresql';
  logger.info(
    {
      port: config.port,
      store,
      redis: Boolean(config.redisUrl),
      urls: { panel: `${base}/panel`, app: `${base}/app`, docs: `${base}/docs` },
    },
    `gate service listening on ${base}: panel ${base}/panel, driver app ${base}/app, API docs ${base}/docs`,
  );
  // A person at a terminal gets the same as a short banner; log collectors (no TTY) get only the JSON line above.
  if (process.stdout.isTTY) process.stdout.write(banner(base, store));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    app.get(ShutdownState).draining = true;
    setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    try {
      await app.close();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

/** Where to go next, for the person who just ran `npm start`. */
function banner(base: string, store: string): string {
  return [
    '',
    `  Gate service is running on ${base} (store: ${store})`,
    '',
    `    Web panel    ${base}/panel`,
    `    Driver app   ${base}/app`,
    `    API docs     ${base}/docs`,
    '',
    '  No key yet? Stop the service, run `npm run seed:demo`, and start it again.',
    '',
    '',
  ].join('\n');
}

void main();
