/**
 * POST …/email: identifier first. Every syntactically valid e-mail gets the password page, whether or not
 * an account exists (no enumeration); users without a password fail there generically for now.
 */
import type { InteractionContext } from './state.js';
import { renderEmailPage, renderPasswordPage } from './show-sign-in.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function submitEmail(ctx: InteractionContext) {
  const email = String(ctx.request.body?.email ?? '').trim();
  if (!EMAIL.test(email) || email.length > 254) return renderEmailPage(ctx, email, 'Enter a valid e-mail address.', 400);
  return renderPasswordPage(ctx, email);
}
