/**
 * The self-registration pages: the form (name, address, password twice or none), the page that takes the mailed code,
 * and for an account without a password the page that adds its passkey.
 */
import type { InteractionContext } from './state.js';
import { renderPage } from '../pages/render-page.js';
import { text, type Message, type Text } from '../i18n/messages.js';
import { PageError } from '../errors.js';

const common = (ctx: InteractionContext) => {
  const { entry, base, csrf } = ctx.state.interaction;
  return { title: text('register.title', { app: entry.app.name }), appName: entry.app.name, csrf, restart: base };
};

export interface RegistrationForm {
  name: string;
  email: string;
}

export function renderRegisterPage(
  ctx: InteractionContext,
  minLength: number,
  typed: RegistrationForm = { name: '', email: '' },
  error?: Message,
  status = 200,
) {
  const { base } = ctx.state.interaction;
  renderPage(ctx as never, 'register', { ...common(ctx), action: `${base}register`, minLength, ...typed, error }, status);
}

export function renderRegisterCodePage(ctx: InteractionContext, email: string, ticket: string, error?: Message, status = 200) {
  const { base } = ctx.state.interaction;
  renderPage(ctx as never, 'register-code', { ...common(ctx), action: `${base}register/code`, email, ticket, error }, status);
}

/** A new account without a password: its passkey, made at the sign-in's passkey enrolment (submit-passkey.ts). */
export function renderRegisterPasskeyPage(ctx: InteractionContext, ticket: string) {
  const { base } = ctx.state.interaction;
  const passkey = { action: `${base}passkey/enrol`, options: `${base}passkey/enrol-options` };
  renderPage(ctx as never, 'register-passkey', { ...common(ctx), scripts: true, passkey, ticket });
}

/** A registration that cannot go on here (closed, expired, the address taken meanwhile): back to the sign-in's start. */
export const registrationStops = (ctx: InteractionContext, message: string, status = 400) =>
  new PageError(status, {
    title: text('register.title', { app: ctx.state.interaction.entry.app.name }),
    heading: 'register.heading',
    message,
    link: { href: ctx.state.interaction.base, label: 'register.code.restart' },
  });
