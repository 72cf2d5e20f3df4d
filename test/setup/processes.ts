import { type ChildProcess, spawn } from 'node:child_process';
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
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, output: () => output };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
