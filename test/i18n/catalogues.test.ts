/**
 * The message catalogues (docs/i18n.md): every locale has every English key and no other, every message parses
 * as ICU in its locale and uses the same placeholders and tags as the English one, and every key the views and the
 * code name exists. A missing or misspelt key would show as a raw key on a page: this finds it without a browser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { LOCALES, readCatalogue } from '../../src/i18n/catalogues.js';
import { messageProblem } from '../../src/i18n/messages.js';
import { AUDIT_ACTIONS } from '../../src/domain/audit-actions.js';
import { ROOT } from '../helpers/paths.js';

const english = readCatalogue('en');
const others = LOCALES.filter((locale) => locale !== 'en');

/** The argument names and tag names a message uses, e.g. ['{app}', '<strong>']. */
function shape(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
      if (element.type === TYPE.tag) {
        found.add(`<${element.value}>`);
        walk(element.children);
        continue;
      }
      found.add(`{${element.value}}`);
      if (element.type === TYPE.plural || element.type === TYPE.select)
        for (const option of Object.values(element.options)) walk(option.value);
    }
  };
  walk(parse(message));
  return [...found].sort();
}

test('English has messages, each valid ICU', () => {
  expect(Object.keys(english).length).toBeGreaterThan(100);
  for (const [key, message] of Object.entries(english)) expect([key, messageProblem(message, 'en')]).toEqual([key, undefined]);
});

test.each(others)('%s has exactly the English keys, each valid ICU with the English placeholders and tags', (locale) => {
  const catalogue = readCatalogue(locale);
  expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
  for (const [key, message] of Object.entries(catalogue)) {
    expect([key, message.trim().length > 0]).toEqual([key, true]);
    expect([key, messageProblem(message, locale)]).toEqual([key, undefined]);
    expect([key, shape(message)]).toEqual([key, shape(english[key]!)]);
  }
});

/** Every file under `dir` with one of `extensions`. */
const filesIn = (dir: string, extensions: string[]): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesIn(path.join(dir, entry.name), extensions)
      : extensions.some((ext) => entry.name.endsWith(ext))
        ? [path.join(dir, entry.name)]
        : [],
  );

const AREAS = Object.keys(english).map((key) => key.split('.')[0]!);
const keyLike = new RegExp(`['"\`]((?:${[...new Set(AREAS)].join('|')})\\.[a-z0-9_.]+)['"\`]`, 'g');

/** Quoted names shaped like keys that are not messages: audit actions, and key prefixes code completes. */
const notMessages = new Set<string>(AUDIT_ACTIONS);
const isPrefix = (name: string) => Object.keys(english).some((key) => key.startsWith(`${name}.`));

test('every key the views and the code name is in the English catalogue', () => {
  const files = [...filesIn(path.join(ROOT, 'views'), ['.eta', '.js']), ...filesIn(path.join(ROOT, 'src'), ['.ts'])];
  const named = new Map<string, string>();
  for (const file of files)
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue; // comments name settings and files
      for (const [, key] of line.matchAll(keyLike))
        if (!notMessages.has(key!) && !/\.eta$/.test(key!)) named.set(key!, path.relative(ROOT, file));
    }
  expect(named.size).toBeGreaterThan(100);
  const missing = [...named].filter(([key]) => !(key in english) && !isPrefix(key)).map(([key, file]) => `${file}: ${key}`);
  expect(missing).toEqual([]);
});
