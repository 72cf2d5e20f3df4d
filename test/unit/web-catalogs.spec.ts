import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';

/**
 * The message catalogs of the panel and the driver app (web/src/messages): one per language, each with every key
 * of the English one and no other, each message valid ICU with the same placeholders as its English original.
 */
const FOLDER = join(process.cwd(), 'web', 'src', 'messages');
const LANGUAGES = ['en', 'pt-BR', 'es'];
const catalog = (language: string) => JSON.parse(readFileSync(join(FOLDER, `${language}.json`), 'utf8')) as Record<string, string>;

interface Node {
  type: number;
  value?: string;
  options?: Record<string, { value: Node[] }>;
  children?: Node[];
}
/** The argument names a message uses, and the plural and select options it offers for each. */
function placeholders(message: string, language: string): string[] {
  const names = new Set<string>();
  const walk = (nodes: Node[]) => {
    for (const node of nodes) {
      // 0 literal, 7 pound (#): no name of their own.
      if (node.type !== 0 && node.type !== 7 && node.value) names.add(node.value);
      if (node.options) {
        // Plural (6) and select (5) need an `other` choice in every language.
        names.add(`${node.value}:other=${'other' in node.options}`);
        for (const option of Object.values(node.options)) walk(option.value);
      }
      if (node.children) walk(node.children);
    }
  };
  walk(new IntlMessageFormat(message, language).getAst());
  return [...names].sort();
}

describe('the web message catalogs', () => {
  const english = catalog('en');

  it('are one file per language: en, pt-BR and es', () => {
    expect(readdirSync(FOLDER).sort()).toEqual(LANGUAGES.map((language) => `${language}.json`).sort());
  });

  it.each(LANGUAGES)('%s has every key of the English catalog and no other', (language) => {
    const keys = Object.keys(catalog(language)).sort();
    expect(keys).toEqual(Object.keys(english).sort());
  });

  it.each(LANGUAGES)('%s: every message is valid ICU, with the placeholders of its English original', (language) => {
    const messages = catalog(language);
    const differing = Object.keys(english).flatMap((key) => {
      const expected = placeholders(english[key], 'en');
      const found = placeholders(messages[key] ?? '', language);
      return JSON.stringify(found) === JSON.stringify(expected) ? [] : [{ key, expected, found }];
    });
    expect(differing).toEqual([]);
    for (const value of Object.values(messages)) expect(value.trim()).not.toBe('');
  });

  it('formats plurals by the language: one and other', () => {
    const format = (language: string, key: string, values: Record<string, number>) =>
      new IntlMessageFormat(catalog(language)[key], language).format(values);
    expect(format('en', 'webhooks.replay.queued', { count: 1, last: 9 })).toBe('1 event queued again, up to seq 9.');
    expect(format('pt-BR', 'webhooks.replay.queued', { count: 3, last: 9 })).toBe('3 eventos reenfileirados, até o seq 9.');
    expect(format('es', 'app.signIn.tooMany', { seconds: 1 })).toContain('1 segundo ');
  });
});
