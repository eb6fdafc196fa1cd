/** Steps of the authorization endpoint and of the pages the engine writes (end-session, the resume). */
import { stringify, type ParsedUrlQueryInput } from 'node:querystring';
import { inputProblem } from '../../domain/input-text.js';
import { PageError } from '../../errors.js';
import { withEnginePagePolicy } from '../engine-page-csp.js';
import { formOf } from '../read-client.js';
import { authorizationParams } from './find-application.js';
import { applicationOf, type Step } from './state.js';

/** Pages the engine writes itself (form_post, logout) get the pages' policy (engine-page-csp.ts). */
export const enginePagePolicy: Step = (ctx, next) => withEnginePagePolicy(ctx, next);

/**
 * An authorization request by POST is sent on as the same request by GET (303): a cross-site POST would not
 * carry the SameSite=Lax session cookie, and single sign-on would be lost; the engine's own POST support needs
 * SameSite=None cookies, which we refuse.
 */
export const repostAsGet: Step = async function repostAsGet(ctx, next) {
  if (ctx.method !== 'POST') return next();
  const params = await authorizationParams(ctx);
  ctx.status = 303;
  ctx.redirect(`${new URL('../authorize/', applicationOf(ctx).provider.issuer).href}?${stringify(params as ParsedUrlQueryInput)}`);
};

/**
 * End-session parameters the engine keeps in the session (state, the post-logout URI): text the store cannot hold
 * is refused here as a page, before the engine writes it (its session save would fail after the answer).
 */
export const refuseUnstorableLogoutParams: Step = async function refuseUnstorableLogoutParams(ctx, next) {
  const params = ctx.method === 'POST' ? { ...ctx.query, ...(await formOf(ctx)) } : ctx.query;
  if (Object.keys(params).some((key) => inputProblem(key) || inputProblem(params[key]))) {
    throw new PageError(400, {
      title: 'error.sign_out.title',
      heading: 'error.sign_out.heading',
      message: 'error.sign_out.bad_characters',
      code: 'invalid_request',
    });
  }
  return next();
};
