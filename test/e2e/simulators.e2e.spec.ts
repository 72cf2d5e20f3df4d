import { describe, expect, it } from '@jest/globals';
import { freePort, spawnWithOutput } from '../setup/processes.js';

/** The simulators against a port nothing listens on: they name the URL they try and give up with an error. */
describe('simulators (npm run sim:terminal, sim:driver) without a service', () => {
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
