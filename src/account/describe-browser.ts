/** "Firefox on Windows" from a user agent (ua-parser-js), for the account page's list of signed-in browsers. */
import UAParser from 'ua-parser-js';

export function describeBrowser(userAgent: string | null): string {
  if (!userAgent) return 'A browser';
  const { browser, os, device } = new UAParser(userAgent).getResult();
  const name = browser.name ?? 'A browser';
  const where = os.name ? ` on ${os.name}${device.model ? ` (${device.model})` : ''}` : '';
  return `${name}${where}`;
}
