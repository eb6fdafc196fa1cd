/**
 * Every page of a sign-in, rendered from views/: e-mail, password, setup code, "forgot your password?" and its
 * code page, second factor, enrolment, recovery codes; and its error pages.
 */
import QRCode from 'qrcode';
import type { InteractionContext } from './state.js';
import { renderPage } from '../pages/render-page.js';
import { recoveryCodesFile } from '../pages/recovery-codes-file.js';
import { PageError } from '../errors.js';
import { SETUP_CODE_MINUTES } from '../domain/password-setup.js';
import { text, type Message, type Text } from '../i18n/messages.js';
import { chooseLocale, messagesOf } from '../i18n/choose-locale.js';

const titleOf = (ctx: InteractionContext) => text('sign_in.title', { app: ctx.state.interaction.entry.app.name });

function common(ctx: InteractionContext) {
  const { entry, base, csrf } = ctx.state.interaction;
  return { title: titleOf(ctx), appName: entry.app.name, csrf, restart: base };
}

export function renderEmailPage(ctx: InteractionContext, email = '', error?: Message, status = 200) {
  const { base } = ctx.state.interaction;
  // After a failed passkey the browser's autofill is not started again by itself (it would answer at once, again).
  renderPage(
    ctx as never,
    'email',
    {
      ...common(ctx),
      action: `${base}email`,
      forgot: `${base}forgot`,
      passkey: passkeyForm(ctx),
      autofill: !error,
      email,
      error,
      sources: ctx.state.interaction.sources.map((source) => ({ name: source.name, action: `${base}source/${source.slug}` })),
      register: ctx.state.interaction.entry.app.registration?.enabled ? `${base}register` : undefined,
    },
    status,
  );
}

/** The passkey form's targets (views/static/passkey.js fetches the options, then posts the answer). */
const passkeyForm = (ctx: InteractionContext) => ({
  action: `${ctx.state.interaction.base}passkey`,
  options: `${ctx.state.interaction.base}passkey/options`,
});

export function renderPasswordPage(ctx: InteractionContext, email: string, error?: Message, status = 200) {
  const { base } = ctx.state.interaction;
  renderPage(ctx as never, 'password', { ...common(ctx), action: `${base}password`, forgot: `${base}forgot`, email, error }, status);
}

/** A person from an upstream identity provider proves the account that has their address, once, to link it (src/sources/). */
export function renderLinkPage(ctx: InteractionContext, ticket: string, email: string, sourceName: string, error?: Message, status = 200) {
  const { base } = ctx.state.interaction;
  renderPage(
    ctx as never,
    'link',
    { ...common(ctx), action: `${base}link`, forgot: `${base}forgot`, ticket, email, sourceName, error },
    status,
  );
}

export function renderForgotPage(ctx: InteractionContext, email = '', error?: Message, status = 200) {
  renderPage(ctx as never, 'forgot', { ...common(ctx), action: `${ctx.state.interaction.base}forgot`, email, error }, status);
}

/** The same page whether or not `email` has an account ("if an account exists, we sent a code"). */
/** After an error the code typed stays in its field (only the passwords are typed again). */
const typedCode = (ctx: InteractionContext) =>
  String(ctx.request.body?.code ?? '')
    .replace(/[^0-9 ]/g, '')
    .slice(0, 12);

export function renderResetPage(ctx: InteractionContext, email: string, ticket: string, minLength: number, error?: Message, status = 200) {
  const { base } = ctx.state.interaction;
  const code = error ? typedCode(ctx) : '';
  renderPage(
    ctx as never,
    'reset',
    { ...common(ctx), action: `${base}reset`, forgot: `${base}forgot`, email, ticket, minLength, minutes: SETUP_CODE_MINUTES, code, error },
    status,
  );
}

export function renderSetupPage(ctx: InteractionContext, email: string, minLength: number, error?: Message, status = 200) {
  const code = error ? typedCode(ctx) : '';
  renderPage(
    ctx as never,
    'setup',
    { ...common(ctx), action: `${ctx.state.interaction.base}setup`, email, minLength, code, error },
    status,
  );
}

/** The second factor: a code field when the user has TOTP, a passkey button when they have a passkey. */
export function renderMfaPage(
  ctx: InteractionContext,
  ticket: string,
  has: { totp: boolean; passkey: boolean },
  error?: Message,
  status = 200,
) {
  renderPage(
    ctx as never,
    'mfa',
    { ...common(ctx), action: `${ctx.state.interaction.base}mfa`, passkey: has.passkey && passkeyForm(ctx), totp: has.totp, ticket, error },
    status,
  );
}

/** The QR code is an inline data: URL (the pages' CSP allows img-src data:), so the secret never leaves this response. */
export async function renderEnrolPage(
  ctx: InteractionContext,
  ticket: string,
  secret: string,
  otpauth: string,
  error?: Message,
  status = 200,
) {
  const qr = await QRCode.toDataURL(otpauth, { errorCorrectionLevel: 'M', margin: 1, scale: 6 });
  const shown = secret.replace(/(.{4})/g, '$1 ').trim(); // easier to type by hand
  const { base } = ctx.state.interaction;
  const passkey = { action: `${base}passkey/enrol`, options: `${base}passkey/enrol-options` };
  renderPage(ctx as never, 'enrol', { ...common(ctx), action: `${base}enrol`, passkey, ticket, secret: shown, qr, error }, status);
}

/** Shown once: as a list, as text to copy, and as a file to download (the text in the page's language). */
export function renderRecoveryCodesPage(ctx: InteractionContext, ticket: string, codes: string[]) {
  const { t } = messagesOf(ctx as never).translator(chooseLocale(ctx as never));
  const file = recoveryCodesFile(codes, ctx.state.interaction.entry.app.name, t);
  renderPage(ctx as never, 'recovery-codes', { ...common(ctx), action: `${ctx.state.interaction.base}finish`, ticket, codes, ...file });
}

/** The mail queue did not take the setup code: the person tries again in a moment, from the start. */
export function unavailable(ctx: InteractionContext, cause: unknown): PageError {
  return new PageError(
    503,
    {
      title: 'sign_in.try_again_shortly',
      heading: 'sign_in.unavailable.heading',
      message: 'sign_in.unavailable.message',
      link: { href: ctx.state.interaction.base, label: 'sign_in.unavailable.try_again' },
    },
    cause,
  );
}

/** A step whose ticket or code no longer holds: back to the first page of this sign-in. `message`: a catalogue key. */
export function restart(ctx: InteractionContext, message: string | Text): PageError {
  return new PageError(400, {
    title: titleOf(ctx),
    heading: 'sign_in.restart.heading',
    message,
    link: { href: ctx.state.interaction.base, label: 'sign_in.restart.start_again' },
  });
}
