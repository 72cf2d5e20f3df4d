import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { it } from '@jest/globals';
import chromium from '@sparticuz/chromium';
import { type Browser, type BrowserContext, chromium as playwright, type Page } from 'playwright-core';
import { unpackChromium } from './chromium.js';
import { createEmbeddedDataDir } from './databases.js';
import { startTestApp, type TestApp } from './test-app.js';

/** Where the browser tests leave their screenshots (git ignores it). */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'screenshots');

/**
 * Flags of the packaged Chromium (made for one-shot serverless runs) left out: those that would relax what the pages are
 * tested for (same-origin rules, mixed content), and --single-process, with which closing one context ends the browser.
 */
const RELAXING = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);

/**
 * The Chromium that the @sparticuz/chromium package ships (unpacked from the package, never downloaded),
 * driven by playwright-core.
 */
export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({
    executablePath: await unpackChromium(),
    args: chromium.args.filter((arg) => !RELAXING.has(arg)),
    headless: true,
  });
}

export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true, locale: 'en-US' };
export const DESKTOP = { viewport: { width: 1360, height: 900 }, locale: 'en-US' };

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and failed page loads, CSP violations included: a page under test should have none. */
  problems: string[];
  screenshot: (name: string) => Promise<void>;
}

/** A fresh context (its own session storage) and page, with the page's errors collected. */
export async function openPage(browser: Browser, options: Parameters<Browser['newContext']>[0] = DESKTOP): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of [45]\d\d/.test(message.text()))
      problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    page,
    context,
    problems,
    screenshot: async (name) => void (await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })),
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Runs axe-core in the page (injected by the test driver, so the page's CSP does not apply) and returns serious and critical violations. */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** What the page keeps in its session storage (the root tsconfig has no DOM types, so the expressions are text). */
export const sessionItem = (page: Page, name: string): Promise<string | null> =>
  page.evaluate<string | null>(`sessionStorage.getItem(${JSON.stringify(name)})`);
export const sessionSize = (page: Page): Promise<number> => page.evaluate<number>('sessionStorage.length');

/** Signs in to /panel with an API key (the sign-in page's "API key" choice) and waits for the signed-in page. */
export async function signInToPanel(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/panel`);
  await page.getByRole('button', { name: 'API key', exact: true }).click();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A tax id as the pages show it: 11 digits as a CPF (123.456.789-01), 14 as a CNPJ (12.345.678/0001-90), others as given. */
export function shownTaxId(taxId: string): string {
  if (/^\d{11}$/.test(taxId)) return taxId.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
  if (/^\d{14}$/.test(taxId)) return taxId.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5');
  return taxId;
}

/** The two stores every browser test file runs on. */
export const STORES = ['postgresql', 'embedded'] as const;
export type Store = (typeof STORES)[number];

/**
 * `it` for a case that runs on PostgreSQL only: on the embedded store it is skipped. The pages reach the store only
 * through the service's API, so the embedded pass keeps the cases that prove the embedded default serves them end to end
 * (a sign-in, a check-in and its ticket, the board, the calendar) and those of people at the gate (languages, the
 * ticket offline and kept, sign-in codes, times in the device zone); every case twice made these the slowest files.
 */
export const postgresqlOnly = (store: Store) => (store === 'postgresql' ? it : it.skip);

/**
 * The service on a database of its own (PostgreSQL, cloned from the run's template) or on a copy of the run's migrated
 * embedded store in a folder of its own, listening on a random port; `url` is where the browser finds it.
 */
export async function startWebApp(
  store: Store,
  env: Record<string, string> = {},
): Promise<{ gate: TestApp; url: string; close(): Promise<void> }> {
  const dataDir = store === 'embedded' ? createEmbeddedDataDir('gate-web-') : null;
  const gate = await startTestApp(dataDir ? { DATABASE_URL: '', DATA_DIR: dataDir, ...env } : env);
  const { port } = gate.app.getHttpServer().address() as { port: number };
  return {
    gate,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await gate.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
