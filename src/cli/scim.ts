/**
 * `idp scim sync <app>`: a full reconciliation of an application's SCIM endpoint with the directory — every user
 * created, updated or deactivated there as it is here, with the memberships of those in scope — and a report of
 * what changed. What the outbox pushes one change at a time, this does for everyone (first connection, repair).
 */
import type { Command } from 'commander';
import { NotFoundError } from '../errors.js';
import { scimConfigOf, syncApplication } from '../domain/provisioning.js';
import { scimClient } from '../infra/scim-client.js';
import { print, withRuntime } from './context.js';

export function scimCommands(program: Command): void {
  program
    .command('scim')
    .description('outbound SCIM provisioning of the applications')
    .command('sync')
    .description("push every user (and their groups) to the application's SCIM endpoint now, and report what changed")
    .argument('<app>', 'application slug')
    .action(async (slug: string) => {
      await withRuntime(async ({ store }, settings) => {
        const app = settings.applications.find((candidate) => candidate.slug === slug);
        if (!app) throw new NotFoundError(`application ${JSON.stringify(slug)}`);
        const config = scimConfigOf(app);
        if (!config) throw new NotFoundError(`SCIM provisioning of application ${JSON.stringify(slug)} (it has none configured)`);
        const token = process.env[config.token_env];
        if (!token) throw new Error(`${config.token_env} (applications[].provisioning.scim.token_env of ${slug}) is not set`);
        const remote = scimClient({
          url: config.url,
          token,
          timeoutMs: settings.webhooks.timeout_seconds * 1000,
          allowInsecureLoopback: settings.webhooks.allow_insecure_loopback,
        });
        const report = await syncApplication(store, app, remote);
        print(
          `${slug}: ${report.created} created, ${report.updated} updated, ${report.deactivated} deactivated, ${report.unchanged} not provisioned, ${report.failed} refused`,
        );
        for (const failure of report.failures) print(`  refused: ${failure}`);
      });
    });
}
