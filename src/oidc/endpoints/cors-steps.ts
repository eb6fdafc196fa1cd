/** CORS as steps (the decision itself is cors.ts): JSON answers readable by the application's origins, pages by none. */
import { allowedOrigins } from '../../domain/applications.js';
import { allowOrigin, noCors } from '../cors.js';
import type { Step } from './state.js';

/** After the engine answered, whatever it answered: only the application's `allowed_origins` may read it. */
export const allowApplicationOrigins: Step = async function allowApplicationOrigins(ctx, next) {
  try {
    await next();
  } finally {
    const { application } = ctx.state;
    allowOrigin(ctx, () => application && allowedOrigins(application.app));
  }
};

/** Pages (authorize, end-session, the resume) are navigations, never read by scripts. */
export const withoutCors: Step = async function withoutCors(ctx, next) {
  try {
    await next();
  } finally {
    noCors(ctx);
  }
};
