import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Repositories and services come from the Nest container, never built by hand: a hand-built one skips what
 * its module wires (the layout-usage checks, the credential cache, the revocation signal). The folder rules
 * (no cycles, common imports no feature, features never import realtime) are checked by `npm run lint:layers`.
 */
const ROOT = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('wiring', () => {
  it('builds no repository or service with new, in the service or its scripts', () => {
    const built = [...sources('src'), ...sources('scripts')].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/new [A-Z]\w*(?:Repository|Service)\(/g)].map(
        (match) => `${file.slice(ROOT.length)}: ${match[0]}`,
      ),
    );
    expect(built).toEqual([]);
  });
});
