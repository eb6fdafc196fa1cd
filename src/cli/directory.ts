/** `idp users create` and `idp groups create`: the same rules as the API, for scripts and first setup. */
import type { Command } from 'commander';
import { createUser } from '../domain/users.js';
import { createGroup } from '../domain/groups.js';
import { print, withRuntime } from './context.js';

export function directoryCommands(program: Command): void {
  program
    .command('users')
    .description('manage users')
    .command('create')
    .description('create a user and print it as JSON')
    .requiredOption('--email <email>', 'e-mail address (also the username unless --username is given)')
    .requiredOption('--name <name>', 'full display name')
    .option('--username <username>', 'username (default: the e-mail)')
    .option('--group <uuid...>', 'groups to join')
    .option('--inactive', 'create the user deactivated')
    .action(async (options: { email: string; name: string; username?: string; group?: string[]; inactive?: boolean }) => {
      await withRuntime(async ({ store }, settings) => {
        const user = await createUser(
          store,
          {
            username: options.username ?? options.email,
            email: options.email,
            name: options.name,
            is_active: !options.inactive,
            groups: options.group,
          },
          settings.applications,
        );
        print(JSON.stringify(user, null, 2));
      });
    });

  program
    .command('groups')
    .description('manage groups')
    .command('create')
    .description('create a group and print it as JSON')
    .requiredOption('--name <name>', 'group name')
    .action(async (options: { name: string }) => {
      await withRuntime(async ({ store }) => print(JSON.stringify(await createGroup(store, { name: options.name }), null, 2)));
    });
}
