/**
 * "Firefox on Windows" from a user agent (ua-parser-js), for the lists of signed-in browsers. The account page
 * words it in the reader's language from browserOf's parts (views/account.eta); the admin console, in English,
 * takes describeBrowser's sentence.
 */
import UAParser from 'ua-parser-js';

export interface BrowserParts {
  /** The browser's name ("Firefox"); absent when the user agent does not say. */
  browser?: string;
  /** The operating system ("Windows"), and the device model ("iPhone") when there is one. */
  os?: string;
  model?: string;
}

export function browserOf(userAgent: string | null): BrowserParts {
  if (!userAgent) return {};
  const { browser, os, device } = new UAParser(userAgent).getResult();
  return { browser: browser.name, os: os.name, model: os.name ? device.model : undefined };
}

export function describeBrowser(userAgent: string | null): string {
  const { browser, os, model } = browserOf(userAgent);
  const name = browser ?? 'A browser';
  const where = os ? ` on ${os}${model ? ` (${model})` : ''}` : '';
  return `${name}${where}`;
}
