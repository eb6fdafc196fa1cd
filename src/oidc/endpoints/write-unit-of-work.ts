/**
 * The request's writes in one statement (engine-storage/unit-of-work.ts): opened before the engine runs, written
 * once it has answered and before the answer leaves. A token or code the client receives is always stored.
 */
import { errors } from 'oidc-provider';
import type { Store } from '../../store/contract.js';
import { Unavailable } from '../../errors.js';
import { temporarilyUnavailable } from '../engine-unavailable.js';
import { openUnitOfWork } from '../engine-storage/unit-of-work.js';
import type { Step } from './state.js';

/**
 * The token endpoint: the tokens of a 200 answer, with the consume of the code or refresh token they were redeemed
 * for. A refused request wrote nothing it noted. A failed write answers as the engine would have: invalid_grant
 * for a consume lost to an earlier one, temporarily_unavailable for a database that did not take it.
 */
export function writeIssuedTokens(store: Store): Step {
  return async function writeIssuedTokens(ctx, next) {
    const work = openUnitOfWork(ctx, store, { batch: true, redeems: true });
    await next();
    if (ctx.status !== 200) return work.discard();
    try {
      await work.commit();
    } catch (error) {
      const answer = error instanceof Unavailable ? temporarilyUnavailable(error) : error;
      if (!(answer instanceof errors.TemporarilyUnavailable || answer instanceof errors.InvalidGrant)) throw error;
      ctx.status = answer.status;
      if (error instanceof Unavailable) ctx.set(error.headers); // Retry-After
      ctx.body = { error: answer.error, error_description: answer.error_description };
    }
  };
}

/** An authorization (and its resume after the sign-in pages): the grant, the code and the session, before the redirect that hands out the code. */
export function writeAuthorization(store: Store): Step {
  return async function writeAuthorization(ctx, next) {
    const work = openUnitOfWork(ctx, store, { batch: true });
    try {
      await next();
    } finally {
      await work.commit().catch((error) => {
        ctx.remove('Location'); // the code was not stored: it must not reach the application
        throw error;
      });
    }
  };
}
