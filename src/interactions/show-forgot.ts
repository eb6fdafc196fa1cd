/** GET …/forgot: the "Forgot your password?" link of the password page leads here, to ask for the e-mail address. */
import type { InteractionContext } from './state.js';
import { renderForgotPage } from './pages.js';

export async function showForgot(ctx: InteractionContext) {
  const hint = ctx.state.interaction.details.params.login_hint;
  // The address is not carried over from the password page in the link: it would stay in the browser's history.
  return renderForgotPage(ctx, typeof hint === 'string' ? hint : '');
}
