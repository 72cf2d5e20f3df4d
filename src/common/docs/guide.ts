import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The pages of docs/ that explain the API, served at /guide/<page>.md so the OpenAPI document can link them. */
export const GUIDE_PAGES = [
  'statuses',
  'errors',
  'checkin',
  'driver-tokens',
  'listing',
  'idempotency',
  'events',
  'webhooks',
  'capacity',
] as const;
export type GuidePage = (typeof GUIDE_PAGES)[number];

export const guideUrl = (page: GuidePage, anchor = '') => `/guide/${page}.md${anchor ? `#${anchor}` : ''}`;

/** docs/, found upward from this file: the same from src/ (tests) and dist/src/ (the build, the image). */
function docsFolder(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'docs', 'errors.md'))) return join(dir, 'docs');
  }
  return null;
}

/** Each page's text, read once at start-up; a page that is missing is simply not served. */
export function loadGuide(): Map<string, string> {
  const folder = docsFolder();
  const pages = new Map<string, string>();
  if (!folder) return pages;
  for (const page of GUIDE_PAGES) {
    const file = join(folder, `${page}.md`);
    if (existsSync(file)) pages.set(`${page}.md`, readFileSync(file, 'utf8'));
  }
  return pages;
}
