import { IntlMessageFormat } from 'intl-messageformat';
import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import type english from '../messages/en.json';

/**
 * The words the panel and the driver app draw themselves, in Portuguese (Brazil), Spanish and English: one catalog
 * per language (web/src/messages/*.json) of ICU messages (`{ref}`, `{count, plural, one {…} other {…}}`), formatted
 * with the platform's Intl by intl-messageformat. Only the chosen language's catalog is loaded.
 * The layouts' own labels are the partner's words and are drawn as written.
 */
export type MessageKey = keyof typeof english;
export type Catalog = Record<MessageKey, string>;
export type Values = Record<string, string | number | Date>;

export const LANGUAGES = ['pt-BR', 'es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Each language named in itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { 'pt-BR': 'Português (Brasil)', es: 'Español', en: 'English' };

const CATALOGS: Record<Language, () => Promise<{ default: Catalog }>> = {
  'pt-BR': () => import('../messages/pt-BR.json'),
  es: () => import('../messages/es.json'),
  en: () => import('../messages/en.json'),
};

const CHOSEN = 'gate.language';

/** The language chosen on the switch earlier (kept in this browser), else the first of the browser's languages we speak, else English. */
export function initialLanguage(): Language {
  const saved = remembered();
  if (saved && (LANGUAGES as readonly string[]).includes(saved)) return saved as Language;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'pt') return 'pt-BR';
    if (base === 'es') return 'es';
    if (base === 'en') return 'en';
  }
  return 'en';
}

function remembered(): string | null {
  try {
    return localStorage.getItem(CHOSEN);
  } catch {
    return null;
  }
}

function remember(language: Language): void {
  try {
    localStorage.setItem(CHOSEN, language);
  } catch {
    // Storage refused (private mode): the choice holds for this page only.
  }
}

/** Statuses of trips and appointments, as the service names them. */
const STATUS_KEYS: Record<string, MessageKey> = {
  PLANNED: 'status.PLANNED',
  IN_TRANSIT: 'status.IN_TRANSIT',
  SCHEDULED: 'status.SCHEDULED',
  CHECKED_IN: 'status.CHECKED_IN',
  ON_GOING: 'status.ON_GOING',
  COMPLETED: 'status.COMPLETED',
  DELETED: 'status.DELETED',
};

/** Plain functions, not methods: they use no `this`, so pages take them apart (`const { t } = useI18n()`). */
export interface Translator {
  language: Language;
  /** The message `key`, its placeholders filled from `values`. */
  t: (key: MessageKey, values?: Values) => string;
  /** A status as a word (a status the app does not know shows as the service named it). */
  status: (code: string) => string;
  /** An instant (ISO 8601) as date and time in the device's time zone; a timestamp without a zone is UTC. */
  time: (iso: string | null | undefined) => string;
  /** A time window, or "any time" when it has neither end. */
  window: (start: string | null | undefined, end: string | null | undefined) => string;
  /** A number with the language's separators (0,5 in Portuguese and Spanish). */
  number: (value: number) => string;
  /** A yes or no in words. */
  yesNo: (value: boolean) => string;
}

/**
 * An instant from the service: with a zone (`…Z`, `…-03:00`) as given; without one (the logs'
 * `2026-11-22T04:48:54.123456`), as UTC.
 */
export function parseInstant(iso: string): Date {
  const zoned = /(?:Z|[+-]\d\d:?\d\d)$/i.test(iso) || !/T\d\d:\d\d/.test(iso);
  return new Date(zoned ? iso : `${iso}Z`);
}

export function translator(language: Language, catalog: Catalog): Translator {
  const compiled = new Map<MessageKey, IntlMessageFormat>();
  const dates = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
  const numbers = new Intl.NumberFormat(language, { maximumFractionDigits: 6 });
  const t = (key: MessageKey, values?: Values): string => {
    let message = compiled.get(key);
    if (!message) {
      message = new IntlMessageFormat(catalog[key] ?? key, language);
      compiled.set(key, message);
    }
    return String(message.format(values));
  };
  const time = (iso: string | null | undefined): string => {
    if (!iso) return '—';
    const date = parseInstant(iso);
    return Number.isNaN(date.getTime()) ? iso : dates.format(date);
  };
  return {
    language,
    t,
    status: (code) => (STATUS_KEYS[code] ? t(STATUS_KEYS[code]) : code),
    time,
    window: (start, end) => (!start && !end ? t('common.anyTime') : t('common.window', { from: time(start), until: time(end) })),
    number: (value) => numbers.format(value),
    yesNo: (value) => t(value ? 'format.yes' : 'format.no'),
  };
}

/** Loads a language's catalog. */
export async function loadTranslator(language: Language): Promise<Translator> {
  return translator(language, (await CATALOGS[language]()).default);
}

const I18n = createContext<{ translator: Translator; choose(language: Language): void } | null>(null);

/**
 * Gives the page its words; `initial` is the translator loaded before the first render. `title`: the page's title
 * (document.title), kept in the chosen language.
 */
export function I18nProvider({ initial, title, children }: { initial: Translator; title?: MessageKey; children: ComponentChildren }) {
  const [current, setCurrent] = useState(initial);
  useEffect(() => {
    if (title) document.title = current.t(title);
  }, [current, title]);
  const choose = (language: Language) => {
    remember(language);
    void loadTranslator(language).then((next) => {
      document.documentElement.lang = language;
      setCurrent(next);
    });
  };
  return <I18n.Provider value={{ translator: current, choose }}>{children}</I18n.Provider>;
}

export function useI18n(): Translator {
  return useContext(I18n)!.translator;
}

/** The language switch: each language named in itself; the choice is kept in this browser. */
export function LanguageSwitch() {
  const context = useContext(I18n)!;
  const { t, language } = context.translator;
  return (
    <label class="language">
      <span class="visually-hidden">{t('common.language')}</span>
      <select value={language} onChange={(e) => context.choose(e.currentTarget.value as Language)}>
        {LANGUAGES.map((code) => (
          <option key={code} value={code} lang={code}>
            {LANGUAGE_NAMES[code]}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Loads the browser's language, then renders the page in it. */
export async function startWithLanguage(render: (translator: Translator) => void): Promise<void> {
  const language = initialLanguage();
  document.documentElement.lang = language;
  render(await loadTranslator(language));
}
