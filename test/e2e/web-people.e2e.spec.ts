import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { newTerminal } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords } from '../factories/records.js';
import { newUser, totpOf } from '../factories/users.js';
import {
  DESKTOP,
  launchBrowser,
  openPage,
  postgresqlOnly,
  seriousA11yViolations,
  sessionSize,
  startWebApp,
  STORES,
  type Store,
} from '../setup/browser.js';
import { SERVICE_START_MS } from '../setup/processes.js';
import type { TestApp } from '../setup/test-app.js';

/**
 * People in the web panel, in a real browser: signing in with a password and the authenticator's code, the pages a
 * role sees (and those it does not, even by address), signing out; on PostgreSQL, and the gate clerk on the embedded
 * store too.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** The gate's zone: Brazil keeps no daylight saving, so noon there is always 15:00 UTC. */
const ZONE = 'America/Sao_Paulo';
/** Noon of the day `days` from today, on the gate's clock, as ISO 8601 with its offset. */
function noonInZone(days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  const date = new Date(`${today}T12:00:00-03:00`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}
const hourAfter = (iso: string) => new Date(new Date(iso).getTime() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * The names of the navigation's page buttons, in order, once it shows them (rendered together: the page set up for
 * two-step sign-in has a Sign out button of its own, and no navigation until the panel has read the person again).
 */
const navigation = async (page: Page) => {
  const buttons = page.getByRole('navigation').getByRole('button');
  await buttons.first().waitFor();
  return buttons.allTextContents();
};

describe.each(STORES)('people in the web panel on %s', (storeName: Store) => {
  const onPostgresql = postgresqlOnly(storeName);
  let service: Awaited<ReturnType<typeof startWebApp>>;
  let gate: TestApp;
  let url: string;
  beforeAll(async () => {
    service = await startWebApp(storeName);
    ({ gate, url } = service);
  }, SERVICE_START_MS);
  afterAll(async () => {
    await service?.close();
  });

  it('a gate clerk signs in with a password and a TOTP code in pt-BR, sees only their pages, today first, and signs out with "Sair"', async () => {
    const terminal = await newTerminal(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'card');
    const at = (days: number) =>
      createItem('appointment', 'card', { window_start: noonInZone(days), window_end: hourAfter(noonInZone(days)) });
    const [yesterday, today, tomorrow] = await createRecords(gate.http, terminal.key, 'appointment', [at(-1), at(0), at(1)]);
    const clerk = await newUser(gate, terminal.id, 'gate', { mfa: true });

    const { page, context, problems, screenshot } = await openPage(browser, { ...DESKTOP, locale: 'pt-BR', timezoneId: ZONE });
    try {
      await page.goto(`${url}/panel`);
      const form = page.getByRole('form', { name: 'Entrar' });
      // The conventions password managers and screen readers rely on.
      expect(await form.getByLabel('E-mail').getAttribute('autocomplete')).toBe('username');
      expect(await form.getByLabel('Senha').getAttribute('autocomplete')).toBe('current-password');
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(`${storeName}-panel-people-sign-in-pt-BR`);

      // A wrong password is said in words, the same as an unknown email.
      await form.getByLabel('E-mail').fill(clerk.email);
      await form.getByLabel('Senha').fill('not the password at all');
      await form.getByLabel('Senha').press('Enter');
      await page.getByRole('alert').filter({ hasText: 'O e-mail ou a senha não está correto.' }).waitFor();

      // The right one: the service asks for the code (MFA_REQUIRED), in the same form; Enter submits.
      await form.getByLabel('Senha').fill(clerk.password);
      await form.getByLabel('Senha').press('Enter');
      const code = form.getByLabel('Código de autenticação');
      await code.waitFor();
      expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
      expect(await code.getAttribute('inputmode')).toBe('numeric');
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(`${storeName}-panel-people-code-pt-BR`);
      await code.fill(totpOf(clerk.mfaSecret!));
      await code.press('Enter');

      // The gate clerk's pages, exactly: today's board first, and their own account.
      await page.getByRole('button', { name: 'Sair' }).waitFor();
      expect(await navigation(page)).toEqual(['Agendamentos', 'Portaria', 'Minha conta']);
      expect(await page.locator('.person').textContent()).toBe('Test gate · Porteiro');
      await page.locator('tbody tr', { hasText: today }).waitFor();
      expect(await page.locator('tbody tr', { hasText: yesterday }).count()).toBe(0);
      expect(await page.locator('tbody tr', { hasText: tomorrow }).count()).toBe(0);
      expect(await page.getByLabel('Janela a partir de').inputValue()).toMatch(/T00:00$/);
      // What a gate clerk may not change shows no button: no new appointment, no layouts to draw tickets with, but
      // the driver's link.
      expect(await page.getByRole('button', { name: 'Novo agendamento' }).count()).toBe(0);
      await page.getByRole('button', { name: today }).click();
      await page.getByRole('button', { name: /^Gerar um link de acesso/ }).waitFor();
      await screenshot(`${storeName}-panel-people-gate-board`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      // A page the role may not use, opened by its address, is not drawn: a notice instead.
      for (const address of ['#capacity', '#users', '#webhooks', '#layouts', '#keys', '#account']) {
        await page.evaluate(`location.hash = ${JSON.stringify(address)}`);
        await page.getByRole('heading', { name: 'Esta página não está disponível para você' }).waitFor();
        expect(await page.locator('table').count()).toBe(0);
        expect(await page.locator('form').count()).toBe(0);
      }
      // Also when the page is loaded at that address.
      await page.goto(`${url}/panel#users`);
      await page.reload();
      await page.getByRole('heading', { name: 'Esta página não está disponível para você' }).waitFor();
      expect(await navigation(page)).toEqual(['Agendamentos', 'Portaria', 'Minha conta']);
      await screenshot(`${storeName}-panel-people-not-available`);

      // "Sair" ends the session at the service: its cookie no longer signs anything in.
      const cookie = (await context.cookies()).find((one) => one.name === 'gate_session');
      expect(cookie?.httpOnly).toBe(true);
      await page.getByRole('button', { name: 'Sair' }).click();
      await page.getByRole('form', { name: 'Entrar' }).getByLabel('E-mail').waitFor();
      expect((await gate.http.get('/api/v1/me').set('Cookie', `gate_session=${cookie!.value}`)).status).toBe(401);
      expect(await sessionSize(page)).toBe(0);
      await page.reload();
      await page.getByRole('form', { name: 'Entrar' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('a planner and a viewer see their own pages; a viewer sees no button that writes', async () => {
    const terminal = await newTerminal(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'card');
    for (const [role, pages] of [
      ['planner', ['Appointments', 'Gate', 'Capacity', 'Reports', 'Layouts', 'Audit', 'My account']],
      ['viewer', ['Appointments', 'Gate', 'Capacity', 'Reports', 'Layouts', 'My account']],
      [
        'owner',
        [
          'Appointments',
          'Gate',
          'Capacity',
          'Reports',
          'Layouts',
          'Webhooks',
          'Users',
          'Account settings',
          'API keys',
          'Audit',
          'My account',
        ],
      ],
    ] as const) {
      const person = await newUser(gate, terminal.id, role);
      const { page, context, problems } = await openPage(browser);
      try {
        await page.goto(`${url}/panel`);
        await page.getByLabel('Email').fill(person.email);
        await page.getByLabel('Password').fill(person.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        expect(await navigation(page)).toEqual(pages);
        await page.getByRole('button', { name: 'Apply filters' }).waitFor();
        expect(await page.getByRole('button', { name: 'New appointment' }).count()).toBe(role === 'viewer' ? 0 : 1);
        await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
        await page.locator('tbody tr', { hasText: 'card' }).waitFor();
        expect(await page.getByRole('button', { name: 'Create layout' }).count()).toBe(role === 'viewer' ? 0 : 1);
        expect(await page.getByRole('button', { name: 'Delete card' }).count()).toBe(role === 'viewer' ? 0 : 1);
        await page.getByRole('navigation').getByRole('button', { name: 'Capacity' }).click();
        await page.getByText('No capacity rules yet', { exact: false }).waitFor();
        expect(await page.getByRole('button', { name: 'New rule' }).count()).toBe(role === 'viewer' ? 0 : 1);
        if (role !== 'owner') {
          await page.evaluate('location.hash = "#users"');
          await page.getByRole('heading', { name: 'This page is not available to you' }).waitFor();
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  onPostgresql('an owner invites a planner, who opens the link, sets a password and is signed in to the planner pages', async () => {
    const terminal = await newTerminal(gate.http);
    const owner = await newUser(gate, terminal.id, 'owner');
    const plannerEmail = `planner-${Date.now()}@gate.test`;
    const ownerSide = await openPage(browser);
    const plannerSide = await openPage(browser);
    try {
      const { page } = ownerSide;
      await ownerSide.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
      await page.goto(`${url}/panel`);
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill(owner.password);
      await page.getByLabel('Password').press('Enter');
      await page.getByRole('navigation').getByRole('button', { name: 'Users' }).click();
      await page.locator('tbody tr', { hasText: owner.email }).getByText('Active').waitFor();

      const invite = page.getByRole('form', { name: 'Invite a person' });
      await invite.getByLabel('Email').fill(plannerEmail);
      await invite.getByLabel('Name (optional)').fill('Paula Planner');
      await invite.getByLabel('Role').selectOption({ label: 'Planner' });
      await invite.getByRole('button', { name: 'Invite' }).click();
      const shown = page.getByRole('region', { name: `Invitation for ${plannerEmail}` });
      const link = (await shown.locator('code').textContent())!;
      expect(link).toMatch(new RegExp(`^${url}/panel#invitation=\\S+$`));
      await shown.getByRole('button', { name: 'Copy the invitation link' }).click();
      await shown.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(link);
      await page.locator('tbody tr', { hasText: plannerEmail }).getByText('Invited').waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await ownerSide.screenshot(`${storeName}-panel-people-users`);

      // The planner, in a browser of their own: the invitation says who is invited, to what, as what.
      const invited = plannerSide.page;
      await invited.goto(link);
      await invited.getByText(`${plannerEmail} is invited to ${terminal.name} as Planner.`).waitFor();
      expect(await invited.getByLabel('Your name').inputValue()).toBe('Paula Planner');
      const form = invited.getByRole('form', { name: 'Accept the invitation' });
      expect(await form.getByLabel('New password', { exact: true }).getAttribute('autocomplete')).toBe('new-password');
      await form.getByLabel('New password', { exact: true }).fill('short one');
      await form.getByLabel('New password again').fill('short one');
      await form.getByRole('button', { name: 'Accept and sign in' }).click();
      await form.getByRole('alert').filter({ hasText: 'The password needs at least 12 characters.' }).waitFor();
      await form.getByLabel('New password', { exact: true }).fill('a long and private passphrase');
      await form.getByLabel('New password again').fill('a long and private passphrase!');
      await form.getByRole('button', { name: 'Accept and sign in' }).click();
      await form.getByRole('alert').filter({ hasText: 'The two passwords are not the same.' }).waitFor();
      expect(await seriousA11yViolations(invited)).toEqual([]);
      await plannerSide.screenshot(`${storeName}-panel-people-invitation`);
      await form.getByLabel('New password again').fill('a long and private passphrase');
      await form.getByRole('button', { name: 'Accept and sign in' }).click();

      // Signed in, on the planner's pages, the link gone from the address bar.
      await invited.getByRole('button', { name: 'Sign out' }).waitFor();
      expect(await navigation(invited)).toEqual(['Appointments', 'Gate', 'Capacity', 'Reports', 'Layouts', 'Audit', 'My account']);
      expect(await invited.locator('.person').textContent()).toBe('Paula Planner · Planner');
      expect(await invited.evaluate<string>('location.hash')).toBe('');
      // The link works once.
      await invited.goto(link);
      await invited.getByRole('alert').filter({ hasText: 'This invitation has expired or was already used.' }).waitFor();

      // The owner sees them active, changes their role, and may not deactivate the last owner.
      await page.reload();
      const row = page.locator('tbody tr', { hasText: plannerEmail });
      await row.getByText('Active').waitFor();
      await row.getByLabel('Role of Paula Planner').selectOption({ label: 'Viewer' });
      await page.getByRole('status').filter({ hasText: 'Paula Planner is now Viewer.' }).waitFor();
      await page.getByRole('button', { name: 'Deactivate Test owner' }).click();
      await page.getByRole('alert').filter({ hasText: 'This is the last active owner of the account' }).waitFor();
      await page.getByRole('button', { name: 'Deactivate Paula Planner' }).click();
      await row.getByText('Deactivated').waitFor();
      // Deactivated: their session has ended.
      await invited.goto(`${url}/panel`);
      await invited.getByRole('form', { name: 'Sign in' }).waitFor();
      expect([...ownerSide.problems, ...plannerSide.problems]).toEqual([]);
    } finally {
      await ownerSide.context.close();
      await plannerSide.context.close();
    }
  });

  onPostgresql(
    'a person sets up MFA on My account, signs in with a recovery code, makes a key of their own, and signs out everywhere',
    async () => {
      const terminal = await newTerminal(gate.http);
      const planner = await newUser(gate, terminal.id, 'planner');
      const { page, context, problems, screenshot } = await openPage(browser);
      const signInForm = async (code?: string) => {
        await page.goto(`${url}/panel`);
        await page.getByLabel('Email').fill(planner.email);
        await page.getByLabel('Password').fill(planner.password);
        await page.getByLabel('Password').press('Enter');
        if (code) {
          await page.getByLabel('Authentication code').fill(code);
          await page.getByLabel('Authentication code').press('Enter');
        }
        await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
      };
      try {
        await signInForm();
        await page.getByRole('navigation').getByRole('button', { name: 'My account' }).click();
        await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
        await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
        const secret = (await page.locator('[data-secret]').getAttribute('data-secret'))!;
        await page.getByLabel('Authentication code').fill('000000');
        await page.getByRole('button', { name: 'Turn on' }).click();
        await page.getByRole('alert').filter({ hasText: 'That code is not right.' }).waitFor();
        await page.getByLabel('Authentication code').fill(totpOf(secret));
        await page.getByRole('button', { name: 'Turn on' }).click();
        const codes = page.getByRole('region', { name: 'Your recovery codes' });
        await codes.locator('li code').first().waitFor();
        const recovery = await codes.locator('li code').allTextContents();
        expect(recovery).toHaveLength(10);
        expect(await codes.getByRole('link', { name: 'Download the recovery codes' }).getAttribute('download')).toBe(
          'gate-recovery-codes.txt',
        );
        await screenshot(`${storeName}-panel-people-recovery-codes`);
        await codes.getByRole('button', { name: 'I have kept them' }).click();
        await page.getByText('On: signing in also asks for a code of your authenticator app.').waitFor();

        // A key of one's own, with some of one's permissions: shown once, listed with them.
        const keys = page.getByRole('form', { name: 'New key of mine' });
        await keys.getByLabel('Name').fill('my script');
        await keys.getByRole('checkbox', { name: 'appointments:read' }).check();
        await keys.getByRole('button', { name: 'Create key' }).click();
        const shown = page.getByRole('region', { name: 'New key my script' });
        const key = (await shown.locator('code').textContent())!;
        expect((await gate.http.get('/api/v1/appointments').set('X-API-Key', key)).status).toBe(200);
        expect((await gate.http.get('/api/v1/capacity').set('X-API-Key', key)).status).toBe(403);
        await shown.getByRole('button', { name: 'I have copied it' }).click();
        await page.locator('tbody tr', { hasText: 'my script' }).getByText('appointments:read').waitFor();
        expect(await seriousA11yViolations(page)).toEqual([]);

        // Signed out, a recovery code stands in for the authenticator's.
        await page.getByRole('button', { name: 'Sign out', exact: true }).click();
        // The session ends when the service answers; a navigation before then would abort the request.
        await page.getByRole('form', { name: 'Sign in' }).waitFor();
        await signInForm(recovery[0]);
        // Sign out everywhere ends this session too.
        await page.getByRole('navigation').getByRole('button', { name: 'My account' }).click();
        await page.getByRole('button', { name: 'Sign out everywhere' }).click();
        await page.getByRole('form', { name: 'Sign in' }).waitFor();
        await page.reload();
        await page.getByRole('form', { name: 'Sign in' }).waitFor();
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  onPostgresql('an owner requires MFA, sets SSO up and names a key in Spanish; a person without MFA sets it up first', async () => {
    const terminal = await newTerminal(gate.http);
    const owner = await newUser(gate, terminal.id, 'owner');
    const clerk = await newUser(gate, terminal.id, 'gate');
    const ownerSide = await openPage(browser, { ...DESKTOP, locale: 'es-AR' });
    const clerkSide = await openPage(browser);
    try {
      const { page } = ownerSide;
      await page.goto(`${url}/panel`);
      await page.getByLabel('Correo electrónico').fill(owner.email);
      await page.getByLabel('Contraseña').fill(owner.password);
      await page.getByLabel('Contraseña').press('Enter');
      await page.getByRole('navigation').getByRole('button', { name: 'Configuración de la cuenta' }).click();
      const settings = page.getByRole('form', { name: 'Configuración de la cuenta' });
      await settings.getByLabel('Idioma de los correos').selectOption('pt-BR');
      await settings.getByLabel('Todos deben usar la verificación en dos pasos').check();
      await settings.getByRole('button', { name: 'Guardar configuración' }).click();
      await page.getByRole('status').filter({ hasText: 'Guardado.' }).waitFor();
      expect((await gate.http.get('/api/v1/account').set('X-API-Key', terminal.key)).body.data).toMatchObject({
        language: 'pt-BR',
        require_mfa: true,
      });

      // Single sign-on: the provider's settings, the secret never shown back, the redirect URI to register.
      const domain = `port-${Date.now()}.example`;
      const sso = page.getByRole('form', { name: 'Inicio de sesión único (SSO)' });
      await sso.getByLabel('Emisor (dirección https del proveedor)').fill('https://login.port-a.example/realms/staff');
      await sso.getByLabel('Client id').fill('gate-service');
      await sso.getByLabel('Client secret').fill('s3cr3t-from-the-provider');
      await sso.getByLabel('Dominios de correo').fill(`${domain}, Staff.${domain}`);
      await sso.getByLabel('Rol de quien ingresa por primera vez').selectOption({ label: 'Portero' });
      await sso.getByRole('button', { name: 'Guardar inicio de sesión único' }).click();
      await page.getByText(`URI de redirección a registrar en el proveedor: ${url}/sso/callback`).waitFor();
      expect(await sso.getByLabel('Client secret').inputValue()).toBe('');
      expect((await gate.http.get('/api/v1/account/sso').set('X-API-Key', terminal.key)).body.data).toMatchObject({
        issuer: 'https://login.port-a.example/realms/staff',
        client_id: 'gate-service',
        email_domains: [domain, `staff.${domain}`],
        default_role: 'gate',
        passwords_allowed: true,
      });
      await ownerSide.screenshot(`${storeName}-panel-people-account-es`);
      await page.getByRole('button', { name: 'Quitar el inicio de sesión único' }).click();
      await page.getByRole('button', { name: 'Sí, quitar el inicio de sesión único' }).click();
      await page.getByRole('status').filter({ hasText: 'Inicio de sesión único quitado' }).waitFor();
      expect((await gate.http.get('/api/v1/account/sso').set('X-API-Key', terminal.key)).status).toBe(404);

      // The account's keys: named, shown once, revoked after a confirmation.
      await page.getByRole('navigation').getByRole('button', { name: 'Claves de API' }).click();
      await page.getByRole('form', { name: 'Nueva clave de la cuenta' }).getByLabel('Nombre').fill('TMS');
      await page.getByRole('button', { name: 'Crear clave' }).click();
      const shown = page.getByRole('region', { name: 'Nueva clave TMS' });
      const key = (await shown.locator('code').textContent())!;
      expect((await gate.http.get('/api/v1/appointments').set('X-API-Key', key)).status).toBe(200);
      await shown.getByRole('button', { name: 'Ya la copié' }).click();
      const row = page.locator('tbody tr', { hasText: 'TMS' });
      await row.getByText('Nunca usada').waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await row.getByRole('button', { name: 'Revocar la clave TMS' }).click();
      await row.getByRole('button', { name: 'Sí, revocar TMS' }).click();
      await page.locator('tbody tr', { hasText: 'TMS' }).waitFor({ state: 'detached' });
      expect((await gate.http.get('/api/v1/appointments').set('X-API-Key', key)).status).toBe(401);

      // The clerk has no MFA: the panel opens on setting it up, and only then on their pages.
      const clerkPage = clerkSide.page;
      await clerkPage.goto(`${url}/panel`);
      await clerkPage.getByLabel('Email').fill(clerk.email);
      await clerkPage.getByLabel('Password').fill(clerk.password);
      await clerkPage.getByLabel('Password').press('Enter');
      await clerkPage.getByRole('heading', { name: 'Set up two-step sign-in to continue' }).waitFor();
      expect(await clerkPage.getByRole('navigation').count()).toBe(0);
      await clerkPage.getByRole('button', { name: 'Set up two-step sign-in' }).click();
      const secret = (await clerkPage.locator('[data-secret]').getAttribute('data-secret'))!;
      await clerkPage.getByLabel('Authentication code').fill(totpOf(secret));
      await clerkPage.getByRole('button', { name: 'Turn on' }).click();
      await clerkPage.getByRole('button', { name: 'I have kept them' }).click();
      await clerkPage.getByRole('button', { name: 'Sign out' }).waitFor();
      expect(await navigation(clerkPage)).toEqual(['Appointments', 'Gate', 'My account']);
      expect([...ownerSide.problems, ...clerkSide.problems]).toEqual([]);
    } finally {
      await ownerSide.context.close();
      await clerkSide.context.close();
    }
  });

  onPostgresql('"Sign in with SSO" asks the email and goes to /sso/start; an sso_error coming back is said in words', async () => {
    const { page, context, problems } = await openPage(browser, { ...DESKTOP, locale: 'pt-BR' });
    try {
      await page.goto(`${url}/panel#sso_error=SSO_LOGIN_EXPIRED`);
      const form = page.getByRole('form', { name: 'Entrar com SSO' });
      await form.getByRole('alert').filter({ hasText: 'A entrada demorou demais ou já foi usada. Comece de novo.' }).waitFor();
      // The code leaves the address bar: a reload does not say it again.
      expect(await page.evaluate<string>('location.hash')).toBe('');
      expect(await seriousA11yViolations(page)).toEqual([]);

      // The identity provider is the service's business: here, where the browser is sent is what counts.
      const started: string[] = [];
      await page.route('**/sso/start?**', (route) => {
        started.push(route.request().url());
        return route.fulfill({ status: 200, contentType: 'text/plain', body: 'to the provider' });
      });
      await form.getByLabel('E-mail').fill('ana@port-a.example');
      await form.getByLabel('E-mail').press('Enter');
      await page.getByText('to the provider').waitFor();
      expect(started).toEqual([`${url}/sso/start?email=ana%40port-a.example`]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('says a locked email (RATE_LIMITED with its wait) and an SSO-only account (SSO_REQUIRED) in words', async () => {
    const terminal = await newTerminal(gate.http);
    const person = await newUser(gate, terminal.id, 'viewer');
    for (let i = 0; i < 10; i++) {
      const failed = await gate.http.post('/api/v1/sessions').send({ email: person.email, password: `wrong password ${i}` });
      expect(failed.status).toBe(401);
    }
    const { page, context, problems } = await openPage(browser, { ...DESKTOP, locale: 'es-AR' });
    try {
      await page.goto(`${url}/panel`);
      const form = page.getByRole('form', { name: 'Ingresar' });
      await form.getByLabel('Correo electrónico').fill(person.email);
      await form.getByLabel('Contraseña').fill(person.password);
      await form.getByLabel('Contraseña').press('Enter');
      await form.getByRole('alert').filter({ hasText: 'Demasiados intentos. Vuelva a intentarlo en 15 minutos.' }).waitFor();

      // SSO_REQUIRED (an account whose single sign-on forbids passwords), the answer stood in for as the service gives it.
      await page.route('**/api/v1/sessions', (route) =>
        route.fulfill({
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify({ success: false, error: { code: 'SSO_REQUIRED', message: 'This account signs in with SSO' } }),
        }),
      );
      await form.getByRole('button', { name: 'Entrar', exact: true }).click();
      const sso = page.getByRole('form', { name: 'Ingresar con SSO' });
      await sso.getByRole('alert').filter({ hasText: 'Su organización ingresa con inicio de sesión único (SSO)' }).waitFor();
      expect(await sso.getByLabel('Correo electrónico').inputValue()).toBe(person.email);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
