/**
 * Self-registration, when the application offers it (`registration.enabled`): GET/POST …/register takes a name,
 * an address and a password (or none); POST …/register/code takes the mailed code and creates the account, then the
 * sign-in goes on as after a password (second factor, access group: continue-sign-in.ts), or, without one, at the
 * page that adds the account's passkey. Counted per IP (each attempt mails someone) and per address. Refused before
 * anything is mailed: an address outside `registration.email_domains`, and one in a source's `email_domains` (those
 * people sign in there). A known address gets the same page (domain/registration.ts mails it a note instead of a code).
 */
import { inputProblem } from '../domain/input-text.js';
import { isEmailAddress } from '../domain/email-address.js';
import { newPasswordProblems } from '../domain/password-setup.js';
import {
  acceptsAddress,
  claimingSource,
  completeRegistration,
  startRegistration,
  type PendingRegistration,
} from '../domain/registration.js';
import { secretsFrom } from '../domain/secrets.js';
import { text } from '../i18n/messages.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { countAttempt, countFailure } from './count-attempt.js';
import { continueSignIn } from './continue-sign-in.js';
import { registrationStops, renderRegisterCodePage, renderRegisterPage, renderRegisterPasskeyPage } from './registration-pages.js';

const field = (ctx: InteractionContext, name: string) => {
  const value = ctx.request.body?.[name];
  return typeof value === 'string' && !inputProblem(value) ? value : '';
};

/** The registration settings of the sign-in's application; a PageError when it takes no new accounts. */
function openRegistration(ctx: InteractionContext) {
  const registration = ctx.state.interaction.entry.app.registration;
  if (!registration?.enabled) throw registrationStops(ctx, 'register.closed', 404);
  return registration;
}

export function showRegistration(deps: SignInDeps) {
  return async function showRegistration(ctx: InteractionContext) {
    openRegistration(ctx);
    renderRegisterPage(ctx, deps.settings.passwords.min_length);
  };
}

export function submitRegistration(deps: SignInDeps) {
  return async function submitRegistration(ctx: InteractionContext) {
    const registration = openRegistration(ctx);
    const { settings } = deps;
    const typed = { name: field(ctx, 'name').trim().slice(0, 255), email: field(ctx, 'email').trim() };
    const again = (error: Parameters<typeof renderRegisterPage>[3], status = 400) =>
      renderRegisterPage(ctx, settings.passwords.min_length, typed, error, status);
    if (!typed.name) return again('register.errors.name');
    if (!isEmailAddress(typed.email)) return again('register.errors.email');
    if (!acceptsAddress(registration, typed.email))
      return again(text('register.errors.domain', { domains: registration.email_domains.join(', ') }));
    const source = claimingSource(settings.sources, typed.email);
    if (source) return again(text('register.errors.federated', { source: source.name }));
    // Both password fields empty: a passkey instead, added once the account exists.
    const [password, confirmation] = [field(ctx, 'password'), field(ctx, 'confirmation')];
    const passwordless = !password && !confirmation;
    const problems = passwordless ? [] : newPasswordProblems(password, confirmation, typed.email, settings.passwords);
    if (problems.length) return again(problems);

    const limited = await countAttempt(ctx, deps, [['code_mails', `register:${typed.email.toLowerCase()}`]], { ip: 'always' });
    if (limited.refused) return again(text('register.errors.too_many', limited.wait), 429);

    const pending = await startRegistration(deps.store, deps.services.sendMail, {
      ...typed,
      password: passwordless ? null : password,
      appName: ctx.state.interaction.entry.app.name,
      cost: settings.passwords.bcrypt_cost,
      key: settings.secrets.key,
      locale: chooseLocale(ctx as never),
    });
    const { uid } = ctx.state.interaction.details;
    const sealed = secretsFrom(settings.secrets.key).seal('registration', JSON.stringify(pending), uid);
    const ticket = deps.tickets.sign(uid, { user: '', stage: 'register', amr: [], registration: sealed });
    renderRegisterCodePage(ctx, typed.email, ticket);
  };
}

export function submitRegistrationCode(deps: SignInDeps) {
  return async function submitRegistrationCode(ctx: InteractionContext) {
    const registration = openRegistration(ctx);
    const { settings } = deps;
    const { uid } = ctx.state.interaction.details;
    const ticket = deps.tickets.verify(uid, ctx.request.body?.ticket, 'register');
    if (!ticket?.registration) throw registrationStops(ctx, 'register.code.expired');
    const pending = JSON.parse(secretsFrom(settings.secrets.key).unseal('registration', ticket.registration, uid)) as PendingRegistration;
    const again = (error: Parameters<typeof renderRegisterCodePage>[3], status = 400) =>
      renderRegisterCodePage(ctx, pending.email, String(ctx.request.body?.ticket), error, status);

    const guesses = `register:${pending.email.toLowerCase()}`;
    const limited = await countAttempt(ctx, deps, [
      ['interaction', `register:${uid}`],
      ['code_guesses', guesses],
    ]);
    if (limited.refused) return again(text('register.code.too_many', limited.wait), 429);

    const outcome = await completeRegistration(deps.store, {
      pending,
      code: field(ctx, 'code').replace(/\s/g, ''),
      key: settings.secrets.key,
      groups: registration.groups,
      applications: settings.applications,
    });
    if (!outcome.ok && outcome.reason === 'code') {
      await countFailure(ctx, deps);
      return again('register.code.wrong');
    }
    if (!outcome.ok) throw registrationStops(ctx, 'register.code.taken', 409);
    await deps.services.limits.reset('code_guesses', guesses);
    if (pending.passwordHash) return continueSignIn(ctx, deps, outcome.user, ['pwd']);
    // No password: the passkey is its first credential, made at the sign-in's passkey enrolment, which then completes it.
    renderRegisterPasskeyPage(ctx, deps.tickets.sign(uid, { user: outcome.user.uuid, stage: 'enrol', amr: [] }));
  };
}
