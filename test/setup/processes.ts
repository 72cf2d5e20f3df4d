import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface Spawned {
  child: ChildProcess;
  exit: Promise<number | null>;
  output(): string;
}

/** A child process without DATABASE_URL (the embedded store) unless `env` sets one; stdout and stderr kept. */
export function spawnWithOutput(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): Spawned {
  const { DATABASE_URL: _unset, ...inherited } = process.env;
  const child = spawn(command, args, {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, output: () => output };
}

/** The first port the kernel hands out to outgoing connections (`ip_local_port_range`). */
const EPHEMERAL_FROM = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();

/**
 * A port free now, for a process started next, below the ports the kernel hands out to outgoing connections: one of
 * those ports, free when checked, was taken by a connection of another test before the process listened on it
 * (EADDRINUSE). Picked at random, so that test files running at once seldom pick the same.
 */
export async function freePort(): Promise<number> {
  const from = 10_000;
  for (;;) {
    const port = from + Math.floor(Math.random() * (EPHEMERAL_FROM - from));
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, () => resolve(true));
    });
    if (!listening) continue;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
}

/**
 * How long a spawned service may take to answer ready: the first start of an embedded store (initdb, then the
 * migrations) takes tens of seconds when two suites share 2 cores. Tests that spawn one run under SPAWNING_TEST_MS.
 */
export const SERVICE_START_MS = 120_000;
export const SPAWNING_TEST_MS = 300_000;

/**
 * Waits until the service at `url` answers /health/ready with 200. Given the spawned `service`, it fails at once if
 * the service exits first, and a failed wait says what the service wrote.
 */
export async function untilReady(url: string, service?: Spawned): Promise<void> {
  let exited: string | null = null;
  void service?.exit.then((code) => (exited = `the service exited (${code}) before it was ready`));
  const ready = async (): Promise<boolean> => {
    if (exited) throw new Error(exited);
    return (await fetch(`${url}/health/ready`).catch(() => null))?.status === 200;
  };
  try {
    await until(ready, `${url} to be ready`, SERVICE_START_MS);
  } catch (error) {
    if (!service) throw error;
    throw new Error(`${url}: ${(error as Error).message}\n${service.output()}`, { cause: error });
  }
}

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
