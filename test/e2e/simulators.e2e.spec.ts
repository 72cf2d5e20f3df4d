import { describe, expect, it } from '@jest/globals';
import { freePort, spawnWithOutput } from '../setup/processes.js';

/** The simulators against a port nothing listens on: they name the URL they try and give up with an error. */
describe('simulators (npm run sim:terminal, sim:driver) without a service', () => {
  it.each(['sim-terminal', 'sim-driver'])(
    '%s: --help prints the usage (exit 0); an unknown option the problem and the usage (exit 64)',
    async (name) => {
      const help = spawnWithOutput(process.execPath, [`dist/scripts/${name}.js`, '--help'], {});
      expect(await help.exit).toBe(0);
      expect(help.output()).toMatch(/^npm run sim:(terminal|driver) -- --(key|token) /);
      const bad = spawnWithOutput(process.execPath, [`dist/scripts/${name}.js`, '--nonsense'], {});
      expect(await bad.exit).toBe(64);
      expect(bad.output()).toMatch(/^Unknown option '--nonsense'/);
      expect(bad.output()).not.toMatch(/\n\s+at /);
    },
  );

  it('name the URL and the reason of each failed attempt, then exit non-zero; without --url they use PORT', async () => {
    // Both at once: each gives up after five attempts with the client's reconnection delays (about 12 s).
    const url = `http://127.0.0.1:${await freePort()}`;
    const terminal = spawnWithOutput(process.execPath, ['dist/scripts/sim-terminal.js', '--key', 'gsk_unused', '--url', url], {});
    const port = await freePort();
    const driver = spawnWithOutput(process.execPath, ['dist/scripts/sim-driver.js', '--token', 'unused'], { PORT: String(port) });

    expect(await terminal.exit).toBe(1);
    expect(terminal.output()).toContain(`cannot connect to ${url}/terminal: connect ECONNREFUSED`);
    expect(terminal.output()).toContain(`giving up after 5 failed attempts: is the service running at ${url}/terminal?`);

    expect(await driver.exit).toBe(1);
    expect(driver.output()).toContain(`cannot connect to http://localhost:${port}/driver`);
    expect(driver.output()).toContain('giving up after 5 failed attempts');
  });
});
