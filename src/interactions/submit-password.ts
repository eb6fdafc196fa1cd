/**
 * POST …/password: checks the credentials, then the application's access group (spec §5), then finishes
 * the interaction. The failure message is the same for every wrong e-mail/password combination.
 */
import type { Store } from '../store/contract.js';
import type { Settings } from '../settings/schema.js';
import { checkCredentials } from '../domain/passwords.js';
import { mayUseApplication } from '../domain/applications.js';
import type { InteractionContext } from './state.js';
import { renderPasswordPage } from './show-sign-in.js';
import { finishInteraction } from './finish-interaction.js';

export const SIGN_IN_FAILED = 'Incorrect e-mail or password.';

export function submitPassword(store: Store, settings: Settings) {
  return async function submitPassword(ctx: InteractionContext) {
    const email = String(ctx.request.body?.email ?? '').trim();
    const password = String(ctx.request.body?.password ?? '');
    const user = await checkCredentials(store, email, password, settings.passwords.bcrypt_cost);
    if (!user) return renderPasswordPage(ctx, email, SIGN_IN_FAILED, 400);

    const { app } = ctx.state.interaction.entry;
    if (!(await mayUseApplication(store, app, user))) {
      return finishInteraction(ctx, { error: 'access_denied', error_description: 'you are not allowed to use this application' });
    }
    await store.credentials.recordLogin(user.id, new Date());
    return finishInteraction(ctx, { login: { accountId: user.uuid, amr: ['pwd'], remember: true } });
  };
}
