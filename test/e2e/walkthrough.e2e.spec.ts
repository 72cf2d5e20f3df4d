import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { freePort, spawnWithOutput, until, SPAWNING_TEST_MS, untilReady } from '../setup/processes.js';
import { launchBrowser, openPage, PHONE, signInToPanel } from '../setup/browser.js';
import { offending, visibleTexts } from '../setup/words.js';

// These tests start the service as a process (npm start, kill -9, restarts).
jest.setTimeout(SPAWNING_TEST_MS);

/**
 * The README's walkthrough, step by step, with the same npm commands on the embedded store. The only
 * additions: a DATA_DIR and a PORT of the test's own; the seed then prints the simulator commands with `--url`
 * pointing at that port, and they run as printed.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'gate-walkthrough-'));
/** The walkthrough in Portuguese seeds a store of its own: a copy of the migrated one (the first starts from nothing). */
const dataDirPt = createEmbeddedDataDir('gate-walkthrough-pt-');
const processes: ChildProcess[] = [];

const npm = (args: string[], env: Record<string, string>) => {
  const spawned = spawnWithOutput('npm', ['run', '--silent', ...args], { DATA_DIR: dataDir, ...env }, { detached: true });
  processes.push(spawned.child);
  return spawned;
};

/** Whether a process group still has a member. */
const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(async () => {
  for (const child of processes) {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  // The service writes its data folder while it shuts down: removed before it has exited, the folder came back.
  await until(() => processes.every((child) => !groupAlive(child.pid!)), 'the walkthrough processes to exit').catch(() => {
    for (const child of processes) if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
  });
  for (const dir of [dataDir, dataDirPt]) rmSync(dir, { recursive: true, force: true });
});

describe('the README walkthrough', () => {
  it('seed, start, terminal simulator, driver simulator, camera: tickets arrive on the driver; a clerk resolves a read', async () => {
    const port = String(await freePort());
    const seed = npm(['seed:demo'], { PORT: port });
    expect(await seed.exit).toBe(0);
    const [, terminalKey, url] = /npm run sim:terminal -- --key (\S+) --url (\S+)/.exec(seed.output()) ?? [];
    const driverToken = /npm run sim:driver -- --token (\S+) --checkin-next --url (\S+)/.exec(seed.output())?.[1];
    expect(terminalKey).toMatch(/^gsk_/);
    expect(driverToken).toBeDefined();
    expect(url).toBe(`http://localhost:${port}`);
    expect(seed.output()).toContain(`PORT=${port} npm start`);
    expect(seed.output()).toContain(`Swagger UI: ${url}/docs`);
    expect(seed.output()).toContain(`Web panel: ${url}/panel`);
    expect(seed.output()).toContain(`Driver app: ${url}/app#token=${driverToken}`);

    const service = npm(['start'], { PORT: port, LOG_LEVEL: 'warn' });
    await untilReady(url, service);
    expect((await fetch(`${url}/docs`)).status).toBe(200);

    const terminal = npm(['sim:terminal', '--', '--key', terminalKey, '--url', url], {});
    await until(() => terminal.output().includes('waiting for check-ins'), 'the terminal simulator');

    const driver = npm(['sim:driver', '--', '--token', driverToken!, '--url', url, '--checkin-next', '--exit-on-ticket'], {});
    expect(await driver.exit).toBe(0);
    expect(driver.output()).toContain('appointment.status');
    expect(driver.output()).toContain('SCHEDULED → CHECKED_IN');
    expect(driver.output()).toMatch(/ticket\.created ticket [0-9a-f-]{36}/);
    expect(driver.output()).toContain('Gate: A3');
    expect(terminal.output()).toMatch(/accepted with a demo-ticket ticket/);

    // Swagger step: the terminal adds a ticket through the API; a driver app that reconnects replays it.
    const appointmentRef = /appointment (DEMO-\d+)/.exec(seed.output())![1];
    const created = await fetch(`${url}/api/v1/tickets`, {
      method: 'POST',
      headers: { 'X-API-Key': terminalKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ appointment_ref: appointmentRef, layout_ref: 'demo-ticket', content: { gate: 'B7' } }),
    });
    expect(created.status).toBe(201);
    const replay = npm(['sim:driver', '--', '--token', driverToken!, '--url', url, '--after', '2', '--exit-on-ticket'], {});
    expect(await replay.exit).toBe(0);
    expect(replay.output()).toContain('#3 ticket.created');
    expect(replay.output()).toContain('Gate: B7');

    // A truck with no phone: the camera command as the seed printed it reads the Mercosul plate in its old spelling, and
    // the terminal simulator is asked as for a tap.
    const cameraLine = /npm run sim:camera -- (--key \S+ --plate BRA-2419 --stage arrival --url \S+)$/m.exec(seed.output())?.[1];
    expect(cameraLine).toBe(`--key ${terminalKey} --plate BRA-2419 --stage arrival --url ${url}`);
    const camera = npm(['sim:camera', '--', ...cameraLine!.split(' ')], {});
    expect(await camera.exit).toBe(0);
    expect(camera.output()).toContain(`matched appointment ${appointmentRef}-CAM`);
    expect(terminal.output()).toContain(`appointment ${appointmentRef}-CAM, plate BRA2E19`);

    // The browser steps: the printed app link shows the current ticket on the phone (the first one under its history),
    // the panel the checked-in appointment.
    const browser = await launchBrowser();
    try {
      const phone = await openPage(browser, PHONE);
      await phone.page.goto(`${url}/app#token=${driverToken}`);
      await phone.page
        .getByRole('article', { name: `Ticket for ${appointmentRef}` })
        .getByText('B7')
        .waitFor();
      // One current ticket per layout: the Swagger one replaced the check-in's, which waits under the history.
      expect(await phone.page.getByRole('article', { name: `Ticket for ${appointmentRef}`, exact: true }).count()).toBe(1);
      await phone.page.getByText('History: 1 earlier ticket').click();
      expect(await phone.page.getByRole('article', { name: `Earlier ticket for ${appointmentRef}` }).count()).toBe(1);
      const panel = await openPage(browser);
      await signInToPanel(panel.page, url, terminalKey);
      // Both demo appointments are checked in now: the row of each by its ref.
      for (const ref of [appointmentRef, `${appointmentRef}-CAM`])
        await panel.page.locator(`tbody tr[data-ref="${ref}"]`).getByText('Checked in').waitFor();
      // The camera's truck: its ticket on the phone too.
      await phone.page
        .getByRole('article', { name: `Ticket for ${appointmentRef}-CAM`, exact: true })
        .getByText('A3')
        .waitFor();

      // The read again, too unsure to act alone: the gate clerk the seed printed resolves it on the Gate page.
      const [, clerkEmail, clerkPassword] = /^ +Demo Terminal +gate +(\S+) +(\S+)$/m.exec(seed.output()) ?? [];
      const clerk = await openPage(browser);
      await clerk.page.goto(`${url}/panel`);
      await clerk.page.getByLabel('Email').fill(clerkEmail);
      await clerk.page.getByLabel('Password').fill(clerkPassword);
      await clerk.page.getByLabel('Password').press('Enter');
      await clerk.page.getByRole('navigation').getByRole('button', { name: 'Gate' }).click();
      await clerk.page.getByRole('region', { name: "Today's arrivals" }).getByText(`${appointmentRef}-CAM`).waitFor();
      await clerk.page.locator('[data-live="live"]').waitFor();
      const unsure = npm(['sim:camera', '--', ...cameraLine!.split(' '), '--confidence', '0.5'], {});
      expect(await unsure.exit).toBe(0);
      expect(unsure.output()).toContain('referred to a clerk');
      const referral = clerk.page.getByRole('article', { name: 'Read of plate BRA-2419' });
      await referral.getByRole('button', { name: `It is ${appointmentRef}-CAM` }).click();
      await clerk.page
        .getByRole('status')
        .filter({ hasText: `Plate BRA-2419 resolved as ${appointmentRef}-CAM.` })
        .waitFor();
      expect([...phone.problems, ...panel.problems, ...clerk.problems]).toEqual([]);
    } finally {
      await browser.close();
    }

    // The README's curl example, as written, in a shell with the export line the seed printed: the ticket is made once,
    // and the same command again is answered from the first (Idempotent-Replayed).
    const exported = /^ {2}export (GATE_URL=\S+ GATE_TERMINAL_KEY=\S+ GATE_DEMO_REF=\S+)$/m.exec(seed.output())?.[1];
    expect(exported).toContain(`GATE_URL=${url} GATE_TERMINAL_KEY=${terminalKey} GATE_DEMO_REF=${appointmentRef}`);
    const readme = readFileSync('README.md', 'utf8');
    const curl = /```bash\n(IDEMPOTENCY_KEY=[\s\S]*?)```/.exec(readme)?.[1];
    expect(curl).toContain('curl -sS -i "$GATE_URL/api/v1/tickets"');
    const command = curl!.split('\n').filter((line) => line && !line.startsWith('#'));
    const again = command.slice(1).join('\n');
    const shell = spawnWithOutput('bash', ['-c', `export ${exported}\n${command.join('\n')}\necho ---\n${again}`], {});
    expect(await shell.exit).toBe(0);
    const [first, second] = shell.output().split('---');
    expect(first).toMatch(/^HTTP\/1\.1 201/m);
    expect(second).toMatch(/^HTTP\/1\.1 201/m);
    expect(second).toMatch(/^Idempotent-Replayed: true/im);

    // The admin key the seed printed opens the panel's accounts page.
    const adminKey = /Demo Admin +id \S+\n +X-API-Key: (\S+)/.exec(seed.output())?.[1];
    expect(adminKey).toMatch(/^gsk_/);
    expect((await fetch(`${url}/api/v1/admin/accounts`, { headers: { 'X-API-Key': adminKey! } })).status).toBe(200);

    // Start-up says where the pages are (LOG_LEVEL=warn above hides it: a second look at the default level).
    process.kill(-service.child.pid!, 'SIGTERM');
    await service.exit;
    const again2 = npm(['start'], { PORT: port });
    await untilReady(url, again2);
    await until(() => again2.output().includes(`${url}/panel`), 'the start-up line');
    const lines = again2.output().trim().split('\n');
    expect(lines.find((line) => line.includes('gate service listening'))).toContain(`driver app ${url}/app, API docs ${url}/docs`);
    // Nest's route mapping is debug chatter, not shown at the default level.
    expect(again2.output()).not.toContain('Mapped {');
    expect(lines.length).toBeLessThan(10);
    process.kill(-again2.child.pid!, 'SIGTERM');
    await again2.exit;
  });

  it('in Portuguese (Brazil): seed and terminal simulator in pt-BR; the phone with its ticket and the panel with its history', async () => {
    const port = String(await freePort());
    const seed = npm(['seed:demo', '--', '--lang', 'pt-BR'], { DATA_DIR: dataDirPt, PORT: port });
    expect(await seed.exit).toBe(0);
    const [, terminalKey, url] = /npm run sim:terminal -- --key (\S+) --url (\S+) --lang pt-BR$/m.exec(seed.output()) ?? [];
    const appLink = /^Driver app: (\S+)$/m.exec(seed.output())?.[1];
    const ref = /appointment (DEMO-\d+) /.exec(seed.output())?.[1];
    expect([terminalKey, appLink, ref].every(Boolean)).toBe(true);
    const service = npm(['start'], { DATA_DIR: dataDirPt, PORT: port, LOG_LEVEL: 'warn' });
    await untilReady(url, service);
    const terminal = npm(['sim:terminal', '--', '--key', terminalKey, '--url', url, '--lang', 'pt-BR'], { DATA_DIR: dataDirPt });
    await until(() => terminal.output().includes('waiting for check-ins'), 'the terminal simulator');

    const browser = await launchBrowser();
    const brazil = { locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' };
    try {
      // The phone, from the printed link: the driver checks in and reads the ticket.
      const phone = await openPage(browser, { ...PHONE, ...brazil });
      await phone.page.goto(appLink!);
      await phone.page.getByRole('article', { name: ref, exact: true }).getByRole('button', { name: 'Fazer check-in' }).click();
      await phone.page
        .getByRole('article', { name: `Ticket de ${ref}`, exact: true })
        .getByText('A3', { exact: true })
        .waitFor();
      for (const width of [390, 1280]) {
        await phone.page.setViewportSize({ width, height: 900 });
        await phone.screenshot(`walkthrough-pt-BR-app-${width}`);
        expect(offending(await visibleTexts(phone.page))).toEqual([]);
      }

      // The panel, with the terminal's key: the appointment's history, check-in and ticket included.
      const desk = await openPage(browser, { viewport: { width: 1280, height: 900 }, ...brazil });
      await desk.page.goto(`${url}/panel`);
      await desk.page.getByRole('button', { name: 'Chave de API', exact: true }).click();
      await desk.page.getByLabel('Chave de API').fill(terminalKey);
      await desk.page.getByRole('button', { name: 'Entrar' }).click();
      await desk.page.locator('tbody').getByRole('button', { name: ref, exact: true }).click();
      const history = desk.page.getByRole('list', { name: `Histórico de ${ref}` });
      await history.locator('li[data-event="ticket_created"]').waitFor();
      await history.locator('li[data-event="checked_in"]').getByText('Check-in aceito pelo servidor do terminal').waitFor();
      for (const width of [1280, 390]) {
        await desk.page.setViewportSize({ width, height: 900 });
        await desk.screenshot(`walkthrough-pt-BR-panel-history-${width}`);
        expect(offending(await visibleTexts(desk.page))).toEqual([]);
      }
      expect([...phone.problems, ...desk.problems]).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
