import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

/** The real-time layer depends on the feature modules, never the other way round (no cycle between them). */
describe('layers', () => {
  it('no file under src/modules imports src/realtime', () => {
    const offenders = sources('src/modules').filter((file) => /from '(\.\.\/)+realtime\//.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
