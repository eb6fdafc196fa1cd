/**
 * `idp groups create|list|add-member|remove-member`: the same domain functions as the API (createGroup, listGroups,
 * changeGroupMembership), so a removal from an access group ends the user's grants with its applications here too.
 */
import type { Command } from 'commander';
import { changeGroupMembership, createGroup, listGroups } from '../domain/groups.js';
import { print, printTable, withRuntime } from './context.js';
import { groupPkOf, userPkOf } from './find-in-directory.js';
import { limitOf } from './users.js';

export function groupCommands(program: Command): void {
  const groups = program.command('groups').description('manage groups (a group is named by uuid or name)');

  groups
    .command('create')
    .description('create a group and print it as JSON')
    .requiredOption('--name <name>', 'group name')
    .action(async (options: { name: string }) => {
      await withRuntime(async ({ store }) => print(JSON.stringify(await createGroup(store, { name: options.name }), null, 2)));
    });

  groups
    .command('list')
    .description('groups, with their member counts (the API’s order)')
    .option('--search <text>', 'part of the name')
    .option('--limit <n>', 'how many', '100')
    .option('--json', 'print JSON')
    .action(async (options: { search?: string; limit: string; json?: boolean }) => {
      const limit = limitOf(options.limit);
      await withRuntime(async ({ store }) => {
        const { total, results } = await listGroups(store, { search: options.search }, { offset: 0, limit });
        if (options.json) return print(JSON.stringify(results, null, 2));
        printTable(
          ['UUID', 'NAME', 'MEMBERS'],
          results.map((group) => [group.pk, group.name, String(group.users_count)]),
        );
        if (total > results.length) print(`(${results.length} of ${total}: narrow with --search or raise --limit)`);
      });
    });

  for (const [name, action, what] of [
    ['add-member', 'added', 'add a user to a group (applications hear group_membership_change)'],
    ['remove-member', 'removed', "remove a user from a group; leaving an application's access group ends their grants with it"],
  ] as const) {
    groups
      .command(name)
      .description(what)
      .argument('<group>', 'uuid or name')
      .argument('<user>', 'pk, uuid or e-mail address')
      .action(async (givenGroup: string, givenUser: string) => {
        await withRuntime(async ({ store }, settings) => {
          const group = await groupPkOf(store, givenGroup);
          const user = await userPkOf(store, givenUser);
          const changed = await changeGroupMembership(store, group, user, action, settings.applications);
          const verb = action === 'added' ? 'added to' : 'removed from';
          print(
            changed
              ? `${givenUser} ${verb} ${givenGroup}`
              : `nothing to do: ${givenUser} was already ${action === 'added' ? 'a member of' : 'not in'} ${givenGroup}`,
          );
        });
      });
  }
}
