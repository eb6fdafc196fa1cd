/** The client endpoints take a form by POST, uncompressed (no OAuth client compresses these requests). */
import { ProtocolError } from '../../errors.js';
import type { Step } from './state.js';

export function onlyPost(name: string): Step {
  return async function onlyPost(ctx, next) {
    if (ctx.method !== 'POST') throw new ProtocolError(405, 'invalid_request', `the ${name} endpoint only accepts POST`, { Allow: 'POST' });
    // The engine reads bodies as they come.
    if (!['', 'identity'].includes(ctx.get('Content-Encoding').toLowerCase())) {
      throw new ProtocolError(400, 'invalid_request', 'compressed request bodies are not supported');
    }
    return next();
  };
}
