/** The pages of a fault that is not the visitor's: briefly unavailable (503), or ours (500). Both offer "Try again". */
import type { Context } from 'koa';
import { PageError } from '../errors.js';

const tryAgain = (ctx: Context) => ({ href: ctx.method === 'GET' ? ctx.originalUrl : '/', label: 'Try again' });

/** A dependency did not answer (the database, Redis): nothing is wrong with the request. */
export const brieflyUnavailable = (ctx: Context, cause: unknown, code?: string) =>
  new PageError(
    503,
    {
      title: 'Try again shortly',
      heading: 'Briefly unavailable',
      message: 'We could not complete this just now. Try again in a few seconds.',
      link: tryAgain(ctx),
      ...(code ? { code } : {}),
    },
    cause,
  );

/** A fault of ours: said plainly, without its details. */
export const ourFault = (ctx: Context, cause: unknown, code?: string) =>
  new PageError(
    500,
    {
      heading: 'Something went wrong',
      message: 'This is a fault on our side, not yours. Try again in a moment.',
      link: tryAgain(ctx),
      ...(code ? { code } : {}),
    },
    cause,
  );
