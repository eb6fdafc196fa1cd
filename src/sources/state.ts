/** What the sign-in pages' handlers of upstream identity providers share: the sign-in's, the upstreams and their cookies. */
import type { SignInDeps } from '../interactions/state.js';
import type { FlowCookies } from './flow-cookies.js';
import type { Upstreams } from './upstreams.js';

export interface SourceDeps extends SignInDeps {
  upstreams: Upstreams;
  cookies: FlowCookies;
}
