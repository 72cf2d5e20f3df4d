import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { useTestApp } from '../setup/test-app.js';
import { guidePage } from '../../src/common/docs/guide.js';

type Json = Record<string, any>;

const describeProblem = (p: NormalizedProblem) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`;

describe('the OpenAPI document served at /docs-json', () => {
  const t = useTestApp();
  let document: Json;
  beforeAll(async () => {
    document = (await t.http.get('/docs-json').expect(200)).body;
  });

  it("passes Redocly's recommended rules: no error, no invalid example", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'docs-json.json', config });
    const failing = problems.filter((p) => p.severity === 'error' || p.ruleId === 'no-invalid-media-type-examples');
    expect(failing.map(describeProblem)).toEqual([]);
  });

  it('types every property: no scalar comes out as a bare object, no array without item type', () => {
    const untyped: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Json;
      for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
        const composed = property.$ref || property.allOf || property.anyOf || property.oneOf;
        const bareObject = property.type === 'object' && !property.properties && !property.additionalProperties;
        if (!composed && (property.type === undefined || bareObject)) untyped.push(`${path}.${name}`);
        if (property.type === 'array' && !property.items?.type && !property.items?.$ref) untyped.push(`${path}.${name}[]`);
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${path}/${key}`);
    };
    walk(document, '#');
    for (const [path, item] of Object.entries<Json>(document.paths))
      for (const [method, operation] of Object.entries<Json>(item))
        for (const parameter of operation.parameters ?? [])
          if (!parameter.schema?.type || (parameter.schema.type === 'array' && !parameter.schema.items?.type))
            untyped.push(`${method} ${path} ?${parameter.name}`);
    expect(untyped).toEqual([]);
  });

  it('has an example for every request body and every success response', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<Json>(document.paths))
      for (const [method, operation] of Object.entries<Json>(item)) {
        const bodies = Object.entries<Json>(operation.requestBody?.content ?? {}).map(([type, media]) => [`body ${type}`, media] as const);
        const successes = Object.entries<Json>(operation.responses)
          .filter(([status]) => status.startsWith('2'))
          .flatMap(([status, response]) =>
            Object.entries<Json>(response.content ?? {}).map(([type, media]) => [`${status} ${type}`, media] as const),
          );
        for (const [what, media] of [...bodies, ...successes])
          if (media.example === undefined && !media.examples && media.schema?.type !== 'string') missing.push(`${method} ${path} ${what}`);
      }
    expect(missing).toEqual([]);
  });

  it("links the guide's pages, and every link it makes to /guide resolves to the page (served from docs/)", async () => {
    const links = [...new Set(JSON.stringify(document).match(/\/guide\/[a-z-]+\.md/g) ?? [])];
    expect(links).toEqual(
      expect.arrayContaining([
        '/guide/statuses.md',
        '/guide/errors.md',
        '/guide/checkin.md',
        '/guide/driver-tokens.md',
        '/guide/idempotency.md',
        '/guide/events.md',
      ]),
    );
    // Each page is readable HTML (rendered from its markdown), under a CSP that allows no script; web.md is one of them.
    for (const link of [...links, '/guide/web.md']) {
      const page = await t.http.get(link);
      expect([link, page.status, page.type]).toEqual([link, 200, 'text/html']);
      expect(page.text).toMatch(/<h1>[^<]+<\/h1>/);
      expect(page.text).not.toMatch(/<script/i);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    }
    expect((await t.http.get('/guide/web.md')).text).toContain('<h1>The web panel and the driver app</h1>');
    const css = await t.http.get('/guide/guide.css');
    expect([css.status, css.type]).toEqual([200, 'text/css']);
    // Raw HTML in a page is shown as text, never passed through; links to scripts are dropped.
    const html = guidePage('# Title\n\n<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script|<img|href="javascript/i);
    expect((await t.http.get('/guide/nothing.md')).status).toBe(404);
    expect((await t.http.get('/guide/..%2Fpackage.json')).status).toBe(404);
  });

  it('is the one committed in client/openapi.json (run `npm run client:generate` after changing the API)', () => {
    const committed = JSON.parse(readFileSync('client/openapi.json', 'utf8'));
    try {
      expect(document).toEqual(committed);
    } catch (error) {
      throw new Error(
        `client/openapi.json is not the served document: run \`npm run client:generate\` and commit client/.\n${String(error)}`,
        {
          cause: error,
        },
      );
    }
  });
});
