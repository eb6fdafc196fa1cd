/**
 * `idp users create|list|deactivate|reactivate`: the same domain functions as the API (createUser, listUsers,
 * updateUser), so the events, the audit entries and the ended sessions of a deactivation are the same.
 */
import type { Command } from 'commander';
import { createUser, listUsers, updateUser, type UserView } from '../domain/users.js';
import { print, printTable, withRuntime } from './context.js';
import { groupPkOf, userPkOf } from './find-in-directory.js';

/** `--limit` as a whole number ≥ 1. */
export function limitOf(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a whole number ≥ 1');
  return limit;
}

const printUsers = (users: UserView[], total: number) => {
  printTable(
    ['PK', 'UUID', 'EMAIL', 'NAME', 'ACTIVE', 'GROUPS', 'LAST LOGIN'],
    users.map((user) => [
      String(user.pk),
      user.uuid,
      user.email,
      user.name,
      user.is_active ? 'yes' : 'no',
      String(user.groups.length),
      user.last_login ?? '-',
    ]),
  );
  if (total > users.length) print(`(${users.length} of ${total}: narrow with --search, --email or --group, or raise --limit)`);
};

export function userCommands(program: Command): void {
  const users = program.command('users').description('manage users (a user is named by pk, uuid or e-mail address)');

  users
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

  users
    .command('list')
    .description('users in pk order (the API’s filters)')
    .option('--search <text>', 'part of the name or e-mail address')
    .option('--email <email>', 'exactly this e-mail address (any case)')
    .option('--group <group>', 'members of this group (uuid or name)')
    .option('--active', 'active users only')
    .option('--inactive', 'deactivated users only')
    .option('--limit <n>', 'how many', '100')
    .option('--json', 'print JSON')
    .action(
      async (options: {
        search?: string;
        email?: string;
        group?: string;
        active?: boolean;
        inactive?: boolean;
        limit: string;
        json?: boolean;
      }) => {
        if (options.active && options.inactive) throw new Error('--active and --inactive exclude each other');
        const limit = limitOf(options.limit);
        await withRuntime(async ({ store }) => {
          const group = options.group === undefined ? undefined : await groupPkOf(store, options.group);
          const filter = {
            search: options.search,
            email: options.email,
            groups: group ? [group] : undefined,
            is_active: options.active ? true : options.inactive ? false : undefined,
          };
          const { total, results } = await listUsers(store, filter, { offset: 0, limit });
          if (options.json) return print(JSON.stringify(results, null, 2));
          printUsers(results, total);
        });
      },
    );

  for (const [name, active, what] of [
    ['deactivate', false, 'deactivate a user: their sessions, grants and tokens end, applications hear user_deactivated'],
    ['reactivate', true, 'let a deactivated user sign in again (applications hear user_updated)'],
  ] as const) {
    users
      .command(name)
      .description(what)
      .argument('<user>', 'pk, uuid or e-mail address')
      .action(async (given: string) => {
        await withRuntime(async ({ store }) => {
          const user = await updateUser(store, await userPkOf(store, given), { is_active: active });
          print(`${user.email} (${user.uuid}) is ${active ? 'active' : 'deactivated'}`);
        });
      });
  }
}
