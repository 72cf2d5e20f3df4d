import { describe, expect, it } from '@jest/globals';
import { DEMO_LANGUAGES, demoLanguage, languageOfLocale, REFUSALS, SEED_WORDS } from '../../scripts/demo-language.js';

describe("the demo scripts' language (--lang, else the environment's locale)", () => {
  it.each([
    ['pt_BR.UTF-8', 'pt-BR'],
    ['pt_PT', 'pt-BR'],
    ['pt', 'pt-BR'],
    ['es_MX.UTF-8', 'es'],
    ['es_AR.utf8@euro', 'es'],
    ['en_US.UTF-8', 'en'],
    ['C.UTF-8', null],
    ['POSIX', null],
    ['fr_FR.UTF-8', null],
    ['', null],
    [undefined, null],
  ])('reads the locale %j as %s', (locale, language) => {
    expect(languageOfLocale(locale)).toBe(language);
  });

  it('takes --lang first, then LC_ALL, LC_MESSAGES and LANG (an empty one as unset), else en', () => {
    expect(demoLanguage('es', { LANG: 'pt_BR.UTF-8' })).toBe('es');
    expect(demoLanguage('PT-br', {})).toBe('pt-BR');
    expect(demoLanguage(undefined, { LANG: 'pt_BR.UTF-8' })).toBe('pt-BR');
    expect(demoLanguage(undefined, { LC_ALL: 'es_CO.UTF-8', LANG: 'pt_BR.UTF-8' })).toBe('es');
    expect(demoLanguage(undefined, { LC_ALL: '', LC_MESSAGES: 'en_GB.UTF-8', LANG: 'pt_BR.UTF-8' })).toBe('en');
    expect(demoLanguage(undefined, { LANG: 'C.UTF-8' })).toBe('en');
    expect(demoLanguage(undefined, { LANG: 'de_DE.UTF-8' })).toBe('en');
    expect(demoLanguage(undefined, {})).toBe('en');
  });

  it('has every word in every language, and the words of pt-BR and es are not the English ones but where they are the same word', () => {
    const keys = Object.keys(SEED_WORDS.en).sort();
    for (const language of DEMO_LANGUAGES) expect(Object.keys(SEED_WORDS[language]).sort()).toEqual(keys);
    // Words Brazilian Portuguese or Latin American Spanish write as English does.
    const same = new Set(['plate', 'to']);
    for (const language of ['pt-BR', 'es'] as const) {
      for (const key of keys.filter((key) => !same.has(key))) {
        expect([language, key, SEED_WORDS[language][key as keyof typeof SEED_WORDS.en]]).not.toEqual([
          language,
          key,
          SEED_WORDS.en[key as keyof typeof SEED_WORDS.en],
        ]);
      }
      expect(REFUSALS[language].plate('ABC1D23')).toContain('ABC1D23');
      expect(REFUSALS[language].closed).not.toBe(REFUSALS.en.closed);
    }
    expect(SEED_WORDS.es.driver).toBe('Operador');
    expect(SEED_WORDS.es.plate).toBe('Placa');
  });
});
