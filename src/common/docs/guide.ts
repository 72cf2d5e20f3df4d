import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MarkdownIt from 'markdown-it';

/** The pages of docs/ that explain the API and the web pages, served at /guide/<page>.md so the OpenAPI document can link them. */
export const GUIDE_PAGES = [
  'statuses',
  'errors',
  'checkin',
  'driver-tokens',
  'listing',
  'idempotency',
  'events',
  'webhooks',
  'web',
  'capacity',
  'users',
  'gate',
  'layouts',
  'audit',
  'reports',
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

/**
 * Markdown to HTML, safely: raw HTML in the text is shown as text (never passed through), links are checked by
 * markdown-it (no javascript: or data: URLs), and the page needs no script.
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A guide page as a whole HTML document, titled by its first heading, styled by /guide/guide.css. */
export function guidePage(text: string): string {
  const title = /^#\s+(.+)$/m.exec(text)?.[1] ?? 'Gate service guide';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Gate service</title>
<link rel="stylesheet" href="/guide/guide.css">
</head>
<body>
<nav><a href="/docs">API reference</a> · <a href="/panel">Web panel</a> · <a href="/app">Driver app</a></nav>
<main>
${markdown.render(text)}</main>
</body>
</html>
`;
}

/** The guide's look: readable text and tables, no script, nothing from elsewhere. */
export const GUIDE_CSS = `body{margin:0;font:16px/1.55 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b2430;background:#f2f4f7}
nav{padding:.6rem 1.2rem;background:#0f3d5e}nav a{color:#fff}
main{max-width:60rem;margin:0 auto;padding:1rem 1.2rem 3rem;background:#fff}
h1,h2,h3{line-height:1.25}a{color:#0f3d5e}
code{font:0.9em ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef1f4;padding:.05em .3em;border-radius:4px}
pre{background:#1b2430;color:#f2f4f7;padding:.8rem 1rem;border-radius:8px;overflow-x:auto}pre code{background:none;color:inherit;padding:0}
table{border-collapse:collapse;display:block;overflow-x:auto;margin:1rem 0}th,td{border:1px solid #d5dbe2;padding:.35rem .6rem;text-align:left;vertical-align:top}
th{background:#eef1f4}img{max-width:100%}
`;

/** Each page as HTML, rendered once at start-up; a page that is missing is simply not served. */
export function loadGuide(): Map<string, string> {
  const folder = docsFolder();
  const pages = new Map<string, string>();
  if (!folder) return pages;
  for (const page of GUIDE_PAGES) {
    const file = join(folder, `${page}.md`);
    if (existsSync(file)) pages.set(`${page}.md`, guidePage(readFileSync(file, 'utf8')));
  }
  return pages;
}
