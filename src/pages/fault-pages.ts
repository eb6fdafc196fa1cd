/** The pages of a fault that is not the visitor's: briefly unavailable (503), or ours (500). Both offer "Try again". */
import type { Context } from 'koa';
import { PageError } from '../errors.js';

const tryAgain = (ctx: Context) => ({ href: ctx.method === 'GET' ? ctx.originalUrl : '/', label: 'error.try_again' });

/** A dependency did not answer (the database, Redis): nothing is wrong with the request. */
export const brieflyUnavailable = (ctx: Context, cause: unknown, code?: string) =>
  new PageError(
    503,
    {
      title: 'error.unavailable.title',
      heading: 'error.unavailable.heading',
      message: 'error.unavailable.message',
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
      heading: 'error.fault.heading',
      message: 'error.fault.message',
      link: tryAgain(ctx),
      ...(code ? { code } : {}),
    },
    cause,
  );
