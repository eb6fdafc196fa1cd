/**
 * Translators: `t(key, values)` formats a catalogue's ICU message in one locale (the operator's override first,
 * then the locale's catalogue, then English); `html(key, values)` does the same for messages with markup
 * (`<strong>{app}</strong>`), escaping every value. Code that hands a message to a page (an error, a PageError's
 * heading) hands a key, or a `Text` when the message has values: the page translates it in the reader's locale.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES, shippedCatalogues, type Catalogue, type Locale } from './catalogues.js';

export type Values = Record<string, string | number | Date>;

/** A message not yet translated: its key and values (`V` narrows them where they must travel as JSON). */
export interface Text<V extends Values[string] = Values[string]> {
  key: string;
  values?: Record<string, V>;
}

export const text = (key: string, values?: Values): Text => ({ key, values });

/** What a page is handed to say: a key, a Text, or a list of them (a password's problems), read one after another. */
export type Message = string | Text | ReadonlyArray<string | Text>;

export type Translate = (message: Message, values?: Values) => string;

export interface Translator {
  locale: Locale;
  t: Translate;
  html: Translate;
}

export interface MessagesSettings {
  default_locale: string;
  locales: string[];
  overrides: Record<string, Record<string, string>>;
}

const isList = (message: Message): message is ReadonlyArray<string | Text> => Array.isArray(message);

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The tags a message may carry: each becomes itself. */
const TAGS = Object.fromEntries(
  ['strong', 'em', 'code', 'b'].map((tag) => [tag, (chunks: unknown[]) => `<${tag}>${chunks.join('')}</${tag}>`]),
);

export class Messages {
  readonly defaultLocale: Locale;
  /** The locales offered, in the operator's order: the switcher's, discovery's ui_locales_supported. */
  readonly offered: Locale[];
  private readonly catalogues: Map<string, Catalogue>;
  private readonly compiled = new Map<string, IntlMessageFormat>();
  private readonly translators = new Map<string, Translator>();

  constructor(settings: MessagesSettings = { default_locale: 'en', locales: [...LOCALES], overrides: {} }) {
    this.defaultLocale = settings.default_locale as Locale;
    this.offered = settings.locales.filter((locale): locale is Locale => (LOCALES as readonly string[]).includes(locale));
    const shipped = shippedCatalogues();
    this.catalogues = new Map(LOCALES.map((locale) => [locale, { ...shipped.get(locale), ...settings.overrides[locale] }]));
  }

  /** The message behind a key in a locale, else in English; undefined when no catalogue has the key. */
  source(locale: Locale, key: string): string | undefined {
    return this.catalogues.get(locale)?.[key] ?? this.catalogues.get('en')?.[key];
  }

  translator(locale: Locale): Translator {
    let translator = this.translators.get(locale);
    if (!translator) {
      const format = (message: Message, values: Values | undefined, markup: boolean): string => {
        if (isList(message)) return message.map((each) => format(each, values, markup)).join(' ');
        const { key, values: own } = typeof message === 'string' ? { key: message, values: undefined } : message;
        const formatter = this.formatter(locale, key);
        if (!formatter) return key; // a key no catalogue has: visible, and the catalogue test names it
        const all = { ...own, ...values };
        const shown = markup
          ? {
              ...Object.fromEntries(
                Object.entries(all).map(([name, value]) => [name, typeof value === 'string' ? escapeHtml(value) : value]),
              ),
              ...TAGS,
            }
          : { ...all, ...Object.fromEntries(Object.keys(TAGS).map((tag) => [tag, (chunks: unknown[]) => chunks.join('')])) };
        const out = formatter.format(shown);
        return Array.isArray(out) ? out.join('') : String(out);
      };
      translator = {
        locale,
        t: (message, values) => format(message, values, false),
        html: (message, values) => format(message, values, true),
      };
      this.translators.set(locale, translator);
    }
    return translator;
  }

  private formatter(locale: Locale, key: string): IntlMessageFormat | undefined {
    const id = `${locale}\u0000${key}`;
    let formatter = this.compiled.get(id);
    if (!formatter) {
      const message = this.source(locale, key);
      if (message === undefined) return undefined;
      // A message that does not parse (an override the validation let through cannot; a shipped one the test
      // catches) is shown in English rather than failing the page.
      formatter = messageProblem(message, locale) === undefined ? new IntlMessageFormat(message, locale) : this.formatter('en', key);
      if (!formatter) return undefined;
      this.compiled.set(id, formatter);
    }
    return formatter;
  }
}

let english: Translate | undefined;
/** A message as the shipped English catalogue words it: where a Text's words reach operators and programs (the API). */
export const inEnglish = (message: string | Text) => (english ??= new Messages().translator('en').t)(message);

/** A message's ICU syntax, checked: undefined when it parses, else the parser's complaint. */
export function messageProblem(message: string, locale: string): string | undefined {
  try {
    new IntlMessageFormat(message, locale);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
