import { describe, expect, it } from '@jest/globals';
import { gateScene } from '../factories/checkin.js';
import { freePort, spawnWithOutput, until } from '../setup/processes.js';
import { useTestApp } from '../setup/test-app.js';

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

describe('the terminal simulator (npm run sim:terminal) refuses in the language given', () => {
  const t = useTestApp();

  it.each([
    [['--reject-plate', 'ABC1D23', '--lang', 'pt-BR'], { LANG: 'en_US.UTF-8' }, 'A placa ABC1D23 não tem acesso por este portão'],
    [['--reject-all'], { LANG: 'es_MX.UTF-8' }, 'La puerta está cerrada'],
    [['--reject-plate', 'ABC1D23'], { LANG: 'C.UTF-8' }, 'Plate ABC1D23 is not allowed at this gate'],
  ])('%j with %j: the driver reads "%s"', async (args, env, reason) => {
    const scene = await gateScene(t.http);
    const { id } = await scene.appointment();
    const url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    const terminal = spawnWithOutput(
      process.execPath,
      ['dist/scripts/sim-terminal.js', '--key', scene.terminal.key, '--url', url, ...args],
      {
        LC_ALL: '',
        LC_MESSAGES: '',
        ...env,
      },
    );
    try {
      await until(() => terminal.output().includes('waiting for check-ins'), 'the terminal simulator to connect');
      const refused = await t.http
        .post(`/api/v1/driver/appointments/${id}/check-in`)
        .set('Authorization', `Bearer ${scene.token}`)
        .send({});
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'CHECKIN_REJECTED', details: { reason } });
      // What it prints is the operator's, in English whatever the language.
      expect(terminal.output()).toContain('→ rejected');
    } finally {
      terminal.child.kill();
    }
  });

  it('refuses a language it does not write (exit 64)', async () => {
    const bad = spawnWithOutput(process.execPath, ['dist/scripts/sim-terminal.js', '--key', 'gsk_unused', '--lang', 'de'], {});
    expect(await bad.exit).toBe(64);
    expect(bad.output()).toContain('--lang must be pt-BR, es, en, got "de"');
  });
});
