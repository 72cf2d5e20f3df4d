import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sleep } from './stats.js';

const PRELOAD = new URL('./child-preload.js', import.meta.url).href;

/**
 * What the bench must undo (child processes, its database), undone in reverse order on the way out: at the
 * end of a run, after a failure, or on SIGINT/SIGTERM/SIGHUP.
 */
export class CleanUp {
  private readonly steps: { name: string; run: () => Promise<unknown> }[] = [];
  private running: Promise<void> | null = null;
  private readonly onSignal = new Map<NodeJS.Signals, () => void>();

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const handler = () => {
        console.error(`bench: ${signal}, cleaning up`);
        void this.run().finally(() => process.exit(130));
      };
      this.onSignal.set(signal, handler);
      process.once(signal, handler);
    }
  }

  add(name: string, run: () => Promise<unknown>): void {
    this.steps.push({ name, run });
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.splice(0).reverse()) {
        try {
          await step.run();
        } catch (error) {
          console.error(`bench: clean-up of ${step.name} failed:`, error);
        }
      }
      // Done: a signal is now the next run's to answer. Answered here too, it would exit at once, before that run's
      // clean-up dropped its database (as a run 3 of 3 stopped by SIGTERM once left its own behind).
      for (const [signal, handler] of this.onSignal) process.off(signal, handler);
    })();
    return this.running;
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
export async function stop(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The resident memory of `pid` after a full garbage collection in it (see child-preload.ts). */
export async function rssAfterGc(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await sleep(1000);
  return rssOf(pid);
}

/** CPU time (user and system) process `pid` has used so far, in ms, from /proc (Linux; clock ticks of 10 ms); null where /proc cannot say. */
export function cpuMsOf(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The fields after the command (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The CPU time a process's live threads have had, in ms to the nanosecond (each thread's `schedstat`), where
 * `cpuMsOf` counts 10 ms ticks: for differences over short spans. A thread that ends between two readings takes its
 * time with it; Node's threads live as long as the process.
 */
export function threadsCpuMsOf(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended since the listing.
    }
  }
  return ns / 1e6;
}

/** Whether `pid` is a local process whose command is `name` (a pid the database reports may be another machine's). */
export function isProcessNamed(pid: number, name: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
  } catch {
    return false;
  }
}

export function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) * 1024;
}

/**
 * The built service (dist/src/main.js) on `port`, ready once /health/ready answers. `BENCH_SERVICE_NODE_ARGS` (split on
 * spaces) goes to its `node` first: `--cpu-prof --cpu-prof-dir=/tmp/prof` profiles each service of a run.
 */
export async function startService(port: number, env: NodeJS.ProcessEnv, cleanUp: CleanUp): Promise<ChildProcess> {
  const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, '--expose-gc', '--import', PRELOAD, 'dist/src/main.js'], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cleanUp.add('the service', () => stop(child));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the service exited at start-up (${child.exitCode ?? child.signalCode})`);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return child;
    if (i > 300) throw new Error('the service did not start');
    await sleep(100);
  }
}

/**
 * A floor server of scripts/bench/ (`name` without extension) as its own process; it listens on a port the
 * system picks and reports it over IPC.
 */
export async function startFloor(name: string, env: NodeJS.ProcessEnv, cleanUp: CleanUp): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(new URL(`./${name}.js`, import.meta.url)), [], {
    env: { ...env },
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  cleanUp.add(name, () => stop(child));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 30_000);
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited at start-up (${code ?? signal})`));
    });
  });
  return { child, port };
}
