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
import { text } from '../i18n/messages.js';
import type { LanguageHints } from '../i18n/choose-locale.js';

/** The engine's form details: where it posts, and the session's xsrf value. */
const formOf = (ctx: KoaContextWithOIDC) => ({
  action: ctx.oidc.urlFor('code_verification'),
  xsrf: String((ctx.oidc.session?.state as { secret?: string } | undefined)?.secret ?? ''),
});

/** A page answering the form's POST: the language switcher brings the reader back to the code entry. */
const backToEntry = (ctx: KoaContextWithOIDC) => {
  ctx.state.language = {
    ...((ctx.state.language ?? {}) as LanguageHints),
    back: new URL(ctx.oidc.urlFor('code_verification'), 'http://localhost').pathname,
  } satisfies LanguageHints;
};

/**
 * The engine's problems with a typed code, by class (its re-render errors carry their class name): what the
 * entry page says above the field (a catalogue key).
 */
function entryProblem(error: Error | undefined, status: number): string | undefined {
  switch (error?.name) {
    case undefined:
      return undefined;
    case 'NoCodeError':
      return 'device.entry.no_code';
    case 'NotFoundError':
      return 'device.entry.not_found';
    case 'ExpiredError':
      return 'device.entry.expired';
    case 'AlreadyUsedError':
      return 'device.entry.used';
    default:
      // A form kept open past its session (the xsrf value is gone), or a fault of ours.
      return status >= 500 ? 'device.entry.failed' : 'device.entry.page_expired';
  }
}

/** The code the person typed, kept in the field after a problem (the engine's errors carry it). */
const typedCode = (error: Error | undefined) => String((error as { userCode?: unknown } | undefined)?.userCode ?? '');

export function devicePages(app: ApplicationSettings, store: Store) {
  return {
    /** The entry page, and the page after a problem; a denial ends here too (the engine re-renders on it). */
    async userCodeInputSource(ctx: KoaContextWithOIDC, _form: string, _out?: unknown, error?: Error) {
      if (ctx.method === 'POST') backToEntry(ctx);
      if (error?.name === 'AbortedError') {
        const notAllowed = error.cause instanceof errors.AccessDenied;
        const values = { app: app.name };
        renderPage(ctx as never, 'message', {
          title: notAllowed ? 'device.not_allowed.title' : 'device.denied.title',
          heading: notAllowed ? text('device.not_allowed.heading', values) : 'device.denied.title',
          message: notAllowed ? text('device.not_allowed.message', values) : text('device.denied.message', values),
        });
        return;
      }
      // The engine has set the error's status (200 for a code to type again); Koa's default before a body is 404.
      const status = error ? ctx.status : 200;
      renderPage(
        ctx as never,
        'device',
        { title: 'device.entry.title', ...formOf(ctx), code: typedCode(error), error: entryProblem(error, status) },
        status,
      );
    },

    /** The code was found: which application asks, the code to compare, and Allow or Deny. */
    async userCodeConfirmSource(ctx: KoaContextWithOIDC, _form: string, _client: unknown, _deviceInfo: unknown, userCode: string) {
      const accountId = ctx.oidc.session?.accountId;
      const signedIn = accountId ? (await userAllowedIn(store, app, accountId)).user : undefined;
      if (ctx.method === 'POST') backToEntry(ctx);
      renderPage(ctx as never, 'device-confirm', {
        title: text('device.confirm.title', { app: app.name }),
        appName: app.name,
        ...formOf(ctx),
        code: userCode,
        email: signedIn?.email,
      });
    },

    /** Allowed and signed in: the device's next poll gets its tokens. */
    async successSource(ctx: KoaContextWithOIDC) {
      if (ctx.method === 'POST') backToEntry(ctx);
      renderPage(ctx as never, 'message', {
        title: 'device.done.title',
        heading: 'device.done.heading',
        message: text('device.done.message', { app: app.name }),
      });
    },
  };
}
