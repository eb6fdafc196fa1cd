/**
 * The device sign-in pages (RFC 8628 §3.3) the engine asks for, rendered from views/ in the pages' style: the code
 * entry at {base_url}/device/ and its problems, the confirmation that names the application, and the end (allowed,
 * denied, or not allowed by the access group). Each form posts to the engine's code verification with the engine's
 * xsrf value, which is bound to the browser's session: a page of another site cannot post it (CSRF).
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { ApplicationSettings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { renderPage } from '../pages/render-page.js';
import { userAllowedIn } from '../domain/applications.js';

const START_AGAIN = 'Start signing in on your device again to get a new code.';

/** The engine's form details: where it posts, and the session's xsrf value. */
const formOf = (ctx: KoaContextWithOIDC) => ({
  action: ctx.oidc.urlFor('code_verification'),
  xsrf: String((ctx.oidc.session?.state as { secret?: string } | undefined)?.secret ?? ''),
});

/**
 * The engine's problems with a typed code, by class (its re-render errors carry their class name): what the
 * entry page says above the field.
 */
function entryProblem(error: Error | undefined, status: number): string | undefined {
  switch (error?.name) {
    case undefined:
      return undefined;
    case 'NoCodeError':
      return 'Type the code your device shows.';
    case 'NotFoundError':
      return 'That code is not right. Check the code your device shows and type it again.';
    case 'ExpiredError':
      return `That code has expired. ${START_AGAIN}`;
    case 'AlreadyUsedError':
      return `That code has been used already. ${START_AGAIN}`;
    default:
      // A form kept open past its session (the xsrf value is gone), or a fault of ours.
      return status >= 500 ? 'Something went wrong on our side. Try again in a moment.' : 'This page had expired. Type the code again.';
  }
}

/** The code the person typed, kept in the field after a problem (the engine's errors carry it). */
const typedCode = (error: Error | undefined) => String((error as { userCode?: unknown } | undefined)?.userCode ?? '');

export function devicePages(app: ApplicationSettings, store: Store) {
  return {
    /** The entry page, and the page after a problem; a denial ends here too (the engine re-renders on it). */
    async userCodeInputSource(ctx: KoaContextWithOIDC, _form: string, _out?: unknown, error?: Error) {
      if (error?.name === 'AbortedError') {
        const notAllowed = error.cause instanceof errors.AccessDenied;
        renderPage(ctx as never, 'message', {
          title: notAllowed ? 'Not allowed' : 'Request denied',
          heading: notAllowed ? `You may not use ${app.name}` : 'Request denied',
          message: notAllowed
            ? `Your account is not allowed to use ${app.name}, so your device was not signed in. Ask your administrator for access.`
            : `${app.name} on your device was not signed in. You can close this page.`,
        });
        return;
      }
      // The engine has set the error's status (200 for a code to type again); Koa's default before a body is 404.
      const status = error ? ctx.status : 200;
      renderPage(
        ctx as never,
        'device',
        { title: 'Sign in on a device', ...formOf(ctx), code: typedCode(error), error: entryProblem(error, status) },
        status,
      );
    },

    /** The code was found: which application asks, the code to compare, and Allow or Deny. */
    async userCodeConfirmSource(ctx: KoaContextWithOIDC, _form: string, _client: unknown, _deviceInfo: unknown, userCode: string) {
      const accountId = ctx.oidc.session?.accountId;
      const signedIn = accountId ? (await userAllowedIn(store, app, accountId)).user : undefined;
      renderPage(ctx as never, 'device-confirm', {
        title: `Allow ${app.name}?`,
        appName: app.name,
        ...formOf(ctx),
        code: userCode,
        email: signedIn?.email,
      });
    },

    /** Allowed and signed in: the device's next poll gets its tokens. */
    async successSource(ctx: KoaContextWithOIDC) {
      renderPage(ctx as never, 'message', {
        title: 'Device signed in',
        heading: 'Your device is signed in',
        message: `${app.name} on your device is signed in. You can close this page and go back to your device.`,
      });
    },
  };
}
