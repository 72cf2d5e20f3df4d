import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { isAlive } from './test-run.js';

const LOCK = join(tmpdir(), 'gate-test-chromium.lock');

/**
 * The path of the Chromium that @sparticuz/chromium ships, unpacked into the temp folder on first use. The package
 * takes a file that exists for one that is complete, so two processes unpacking at once (two Jest workers, or
 * two runs on a fresh machine) could start a half-written browser: one unpacks at a time, behind a lock file
 * naming its pid (a lock left by a process that died is taken over).
 */
export async function unpackChromium() {
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(LOCK, 'utf8') || NaN);
      if (Number.isInteger(owner) && !isAlive(owner)) rmSync(LOCK, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await chromium.executablePath();
  } finally {
    rmSync(LOCK, { force: true });
  }
}
