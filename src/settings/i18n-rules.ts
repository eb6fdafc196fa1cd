/** The rules for `i18n` that JSON Schema cannot say: the default is offered, and every override names a real key and parses. */
import type { Settings } from './schema.js';
import { ConfigError } from './config-error.js';
import { shippedCatalogues } from '../i18n/catalogues.js';
import { messageProblem } from '../i18n/messages.js';

export function checkLanguages(settings: Settings): void {
  const { default_locale, locales, overrides } = settings.i18n;
  const problems: string[] = [];
  if (!locales.includes(default_locale)) {
    problems.push(`config: i18n.default_locale "${default_locale}" must be one of i18n.locales (${locales.join(', ')})`);
  }
  const english = shippedCatalogues().get('en')!;
  for (const [locale, messages] of Object.entries(overrides)) {
    for (const [key, message] of Object.entries(messages)) {
      if (!(key in english)) problems.push(`config: i18n.overrides.${locale}["${key}"] is not a message key (see locales/en/*.json)`);
      else {
        const problem = messageProblem(message, locale);
        if (problem) problems.push(`config: i18n.overrides.${locale}["${key}"] is not a valid ICU message: ${problem}`);
      }
    }
  }
  if (problems.length) throw new ConfigError(problems);
}
