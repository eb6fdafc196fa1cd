/** What the credential handlers share, built once by the router. */
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { SignInServices } from './services.js';
import type { TicketSigner } from './tickets.js';

export interface SignInDeps {
  store: Store;
  settings: Settings;
  services: SignInServices;
  tickets: TicketSigner;
}
