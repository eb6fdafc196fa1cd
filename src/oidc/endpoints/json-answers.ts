/** How the JSON endpoints answer beyond what the engine writes. */
import { RETRY_AFTER_SECONDS } from '../../errors.js';
import type { Step } from './state.js';

/** The engine's temporarily_unavailable (the store's Unavailable, engine-unavailable.ts) says when to try again. */
export const sayWhenToRetry: Step = async function sayWhenToRetry(ctx, next) {
  try {
    await next();
  } finally {
    if (ctx.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
  }
};

/**
 * RFC 7009 §2.2: a revocation answers 200 and the client ignores the body. The engine's empty string would go out
 * as text/plain, which clients that accept JSON only (oidc-client-ts) refuse: the answer carries no content type.
 */
export const emptyRevocationAnswer: Step = async function emptyRevocationAnswer(ctx, next) {
  await next();
  if (ctx.status !== 200) return;
  ctx.body = '';
  ctx.remove('Content-Type');
};
