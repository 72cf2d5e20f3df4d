import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

/** docker-compose.yml hands the service every variable .env.example documents, and .env.example documents the compose file's own. */
describe('docker-compose.yml and .env.example', () => {
  const example = readFileSync('.env.example', 'utf8');
  const compose = readFileSync('docker-compose.yml', 'utf8');
  const documented = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]);
  const service = compose.slice(compose.indexOf('\n  gate:'));
  const passed = [...service.matchAll(/^ {6}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1]);

  it('passes every variable of .env.example to the service (but POSTGRES_PASSWORD and DATA_DIR, which it uses itself)', () => {
    expect(documented.filter((name) => !passed.includes(name)).sort()).toEqual(['DATA_DIR', 'POSTGRES_PASSWORD']);
  });

  it('documents POSTGRES_PASSWORD, which the compose file requires', () => {
    expect(compose).toContain('${POSTGRES_PASSWORD:?');
    expect(documented).toContain('POSTGRES_PASSWORD');
    expect(passed.filter((name) => !documented.includes(name))).toEqual([]);
  });
});
