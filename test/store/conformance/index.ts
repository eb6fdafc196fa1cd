/**
 * The storage contract's conformance suite (src/store/contract.ts), one part per store area.
 * Every backend runs all of it — the bare store and the replica cache in front of it alike: behaviour, transactions
 * (all or nothing), concurrency, and what two replicas of one database must agree on.
 */
import type { Backend, Open } from './fixture.js';
import { runApiTokensConformance } from './api-tokens.js';
import { runCredentialsConformance } from './credentials.js';
import { runDirectoryConformance } from './directory.js';
import { runEmailChangesConformance } from './email-changes.js';
import { runEventsConformance } from './events.js';
import { runGroupsConformance } from './groups.js';
import { runInstanceConformance } from './instance.js';
import { runMfaConformance } from './mfa.js';
import { runOidcPayloadsConformance } from './oidc-payloads.js';
import { runPasskeysConformance } from './passkeys.js';
import { runPasswordSetupConformance } from './password-setup.js';
import { runProvisioningConformance } from './provisioning.js';
import { runReplicasConformance } from './replicas.js';
import { runSigningKeysConformance } from './signing-keys.js';
import { runSourceLinksConformance } from './source-links.js';
import { runSweepConformance } from './sweep.js';
import { runTransactionConformance } from './transactions.js';
import { runUsersConformance } from './users.js';

export function runStoreConformance(open: Open, backend: Backend): void {
  runUsersConformance(open);
  runGroupsConformance(open);
  runDirectoryConformance(open);
  runProvisioningConformance(open);
  runCredentialsConformance(open);
  runApiTokensConformance(open);
  runSigningKeysConformance(open);
  runInstanceConformance(open);
  runMfaConformance(open);
  runPasswordSetupConformance(open);
  runEmailChangesConformance(open);
  runPasskeysConformance(open);
  runSourceLinksConformance(open);
  runOidcPayloadsConformance(open);
  runEventsConformance(open, backend);
  runSweepConformance(open);
  runTransactionConformance(open, backend);
  runReplicasConformance(open, backend);
}
