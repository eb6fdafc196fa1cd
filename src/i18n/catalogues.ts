/**
 * The message catalogues: locales/{locale}/*.json, each file a flat map of key → ICU message (FormatJS'
 * intl-messageformat: `{count, plural, one {# code} other {# codes}}`, `<strong>{app}</strong>`). The files of a
 * locale are one catalogue; a key lives in one file only. English is complete by definition; another locale's
 * missing key falls back to English, and test/i18n/catalogues.test.ts keeps every catalogue complete.
 * Operators override any string per locale in configuration (`i18n.overrides`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every locale the pages and mails come in, as BCP 47 tags. */
export const LOCALES = ['en', 'de', 'fr', 'es', 'pt-BR', 'ja', 'zh-CN', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];

/** Locales written right to left: their pages carry dir="rtl" and the layout mirrors. */
export const RIGHT_TO_LEFT: ReadonlySet<string> = new Set(['ar']);

/** Each language's own name, for the switcher. */
export const LANGUAGE_NAMES: Record<Locale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  ja: '日本語',
  'zh-CN': '简体中文',
  ar: 'العربية',
};

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/i18n → ../../locales; dist/src/i18n → ../../../locales. */
export const LOCALES_DIR =
  [path.resolve(here, '../../locales'), path.resolve(here, '../../../locales')].find((dir) => existsSync(path.join(dir, 'en'))) ??
  path.resolve(here, '../../locales');

export type Catalogue = Record<string, string>;

/** One locale's catalogue as shipped: its files merged; a key defined twice is a packaging error. */
export function readCatalogue(locale: string, dir = LOCALES_DIR): Catalogue {
  const folder = path.join(dir, locale);
  if (!existsSync(folder)) return {};
  const catalogue: Catalogue = {};
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const entries = JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as Catalogue;
    for (const [key, message] of Object.entries(entries)) {
      if (key in catalogue) throw new Error(`locales/${locale}: the key ${key} is defined twice (${file})`);
      catalogue[key] = message;
    }
  }
  return catalogue;
}

let shipped: Map<string, Catalogue> | undefined;

/** Every shipped catalogue, read once per process. */
export function shippedCatalogues(): Map<string, Catalogue> {
  shipped ??= new Map(LOCALES.map((locale) => [locale, readCatalogue(locale)]));
  return shipped;
}
