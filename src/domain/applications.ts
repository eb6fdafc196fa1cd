/** Applications (relying parties) as the domain sees them: their access groups and who may sign in. */
import type { ApplicationSettings } from '../settings/schema.js';
import type { Store, UserRow } from '../store/contract.js';
import { UniqueViolation } from '../store/contract.js';

const findGroupByName = async (store: Store, name: string) => (await store.groups.findByName(name))?.uuid;

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Each application's access group as the database compares names, asked once per store and name. */
const comparable = new WeakMap<Store, Map<string, Promise<string>>>();
function accessGroupKey(store: Store, name: string): Promise<string> {
  let names = comparable.get(store);
  if (!names) comparable.set(store, (names = new Map()));
  let key = names.get(name);
  if (!key) {
    const asked = (key = store.groups.comparableName(name));
    names.set(name, asked);
    asked.catch(() => names.delete(name)); // a database that was down is asked again next time
  }
  return key;
}

/** The applications whose access group is the group named `groupName`. */
export const guardedBy = (applications: ApplicationSettings[], groupName: string) =>
  applications.filter((app) => app.access_group !== undefined && sameName(app.access_group, groupName));

/** Creates each application's access group when missing; returns slug → group uuid. */
export async function ensureAccessGroups(store: Store, applications: ApplicationSettings[]): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  for (const app of applications) {
    if (!app.access_group) continue;
    let uuid = await findGroupByName(store, app.access_group);
    if (!uuid) {
      try {
        uuid = (await store.groups.insert({ name: app.access_group })).uuid;
      } catch (error) {
        if (!(error instanceof UniqueViolation)) throw error;
        uuid = await findGroupByName(store, app.access_group); // another replica created it first
      }
    }
    groups.set(app.slug, uuid!);
    await accessGroupKey(store, app.access_group); // asked now, so no token request asks it
  }
  return groups;
}

/**
 * Spec §5: a user outside the application's access group cannot sign in to it, nor refresh or use tokens of it.
 * The user with this uuid, and whether they may use the application: active, and in its access group (compared
 * by name, so renaming or recreating the group takes effect at once). Asked at the end of every sign-in and on
 * every token use. A replica may answer from its read cache, which the database's change notices empty
 * for this user the moment a deactivation or a membership change commits (src/store/change-feed.ts).
 */
export async function userAllowedIn(store: Store, app: ApplicationSettings, uuid: string): Promise<{ user?: UserRow; allowed: boolean }> {
  const found = await store.users.findByUuidWithGroups(uuid);
  if (!found) return { allowed: false };
  // The database's lower-casing on both sides: JavaScript's differs for some letters (İ, Σ), and a group whose name
  // only JavaScript takes for the access group's would let its members in.
  const member = !app.access_group || found.groups.includes(await accessGroupKey(store, app.access_group));
  return { user: found.user, allowed: found.user.is_active && member };
}

/** RFC 8628's grant type: the application signs people in on devices without a browser (or a keyboard). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** Whether the application may start device sign-ins (its grant_types list the device_code grant). */
export const usesDeviceFlow = (app: ApplicationSettings): boolean => app.grant_types.includes(DEVICE_CODE_GRANT);

/** The engine's application_type: as configured, or as validation derived it from the redirect URIs (src/settings/validate.ts); web for the built-in account client. */
export const applicationType = (app: ApplicationSettings): 'web' | 'native' => app.application_type ?? 'web';

/**
 * The OpenID scopes the application may be granted: its configured ones, and offline_access when it may refresh.
 * Every code grant of such an application brings a refresh token whether or not it asks (spec §2.3); asking for
 * offline_access is honoured by granting it (docs/decisions.md).
 */
export function grantableScopes(app: ApplicationSettings): string[] {
  return app.grant_types.includes('refresh_token') ? [...app.scopes, 'offline_access'] : [...app.scopes];
}

/** Browser origins that may call the application's endpoints (CORS): configured, or those of its web redirect URIs. */
export function allowedOrigins(app: ApplicationSettings): string[] {
  const origins = app.allowed_origins ?? app.redirect_uris.filter((uri) => /^https?:/i.test(uri)).map((uri) => new URL(uri).origin);
  return [...new Set(origins)];
}

/** Where "back to the application" goes: the origin of its first http(s) redirect URI. */
export function applicationHome(redirectUris: readonly string[]): string | undefined {
  const web = redirectUris.find((uri) => /^https?:\/\//.test(uri));
  return web ? `${new URL(web).origin}/` : undefined;
}
