/**
 * One whole password sign-in over HTTP, as a browser does it with both fields of the first page filled in (a
 * password manager, or a person who types both): authorize → the sign-in page → its post → the resume → the
 * callback's code → the code exchange. Cookies are kept per sign-in.
 */
import type { BenchFixture } from './fixture.js';
import { expectStatus } from './loops.js';
import { signInBrowser, type SignIn } from './signed-in-fixture.js';

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const actionOf = (html: string) => /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';

/** The service's sign-in page, both fields filled in: answers the 303 to the resume. */
export const withPassword =
  (email: string, password: string): SignIn =>
  async (jar, pageUrl) => {
    const page = expectStatus(await jar.get(pageUrl), 200, 'sign-in page');
    return jar.post(new URL(actionOf(page.body), pageUrl).href, { csrf: csrfOf(page.body), email, password });
  };

export async function passwordSignIn(f: BenchFixture, email: string, password: string): Promise<void> {
  await signInBrowser(f, f.client, withPassword(email, password));
}
