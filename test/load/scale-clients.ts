/**
 * What the clients of `npm run test:scale` do, each request through the balancer (test/load/balancer.ts): people
 * sign in through the pages and exchange the code, applications refresh (carrying the rotated token) and call
 * UserInfo, an operator's script renames people through the provisioning API. And the checks that make scale-out
 * safe, each aimed at named replicas: a token revoked (RFC 7009) or a person deactivated (the API) at one replica is
 * refused at the others at once; a refresh token rotated at one replica and replayed at another is refused and ends
 * its grant. Whatever a client sees that it should not is a `problem`; a failure after an attempt lost in flight with
 * the killed replica (it may have been carried out: a rotated token, a redeemed code) is counted, not a problem.
 */
import { decodeJwt } from 'jose';
import { CookieClient, httpSignIn, redeemCode } from '../helpers/http-client.js';
import type { TestApp } from '../helpers/oidc-server.js';
import { NoAnswer, type Balancer, type RequestRecord } from './balancer.js';
import { describeError, sleep } from './harness.js';
import { runBounded } from './figures.js';

export interface Person {
  pk: number;
  uuid: string;
  email: string;
  /** What the database must hold once every acknowledged write is in. */
  expected: { name: string; is_active: boolean };
  /** Acknowledged writes that each emit one event, and writes sent (each may have been carried out). */
  acked: { user_updated: number; user_deactivated: number };
  sent: { user_updated: number; user_deactivated: number };
}

export interface Chain {
  person: Person;
  accessToken: string;
  refreshToken: string;
}

export interface Problem {
  what: string;
  /** ms since the load started. */
  at: number;
  detail: string;
}

export interface Clients {
  balancer: Balancer;
  app: TestApp;
  publicUrl: string;
  apiToken: string;
  password: string;
  now(): number;
  problems: Problem[];
  tally: Record<string, number>;
  /** Tokens a check revoked (or whose grant a replay ended): none may work anywhere afterwards. */
  revoked: Array<{ kind: 'access' | 'refresh'; token: string }>;
}

const count = (clients: Clients, what: string, by = 1) => (clients.tally[what] = (clients.tally[what] ?? 0) + by);
const lostInFlight = (records: RequestRecord[]) => records.some((record) => record.attempts.some((a) => a.error && !a.refused));
const problem = (clients: Clients, what: string, detail: string): void => {
  clients.problems.push({ what, at: clients.now(), detail: detail.slice(0, 400) });
};

const form = (params: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(params).toString(),
});
const json = async (response: Response) => {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 200);
  }
};

// ------------------------------------------------------------------------------------------------ requests

function userinfo(clients: Clients, accessToken: string, options: { at?: number; sink?: RequestRecord[] } = {}) {
  return clients.balancer.send(
    options.at === undefined ? 'userinfo' : 'check',
    `${clients.publicUrl}/application/o/userinfo/`,
    { headers: { Authorization: `Bearer ${accessToken}` } },
    options,
  );
}

function refreshGrant(clients: Clients, refreshToken: string, options: { at?: number; sink?: RequestRecord[] } = {}) {
  const { client_id, client_secret } = clients.app;
  return clients.balancer.send(
    options.at === undefined ? 'refresh' : 'check',
    `${clients.publicUrl}/application/o/token/`,
    form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id, client_secret }),
    options,
  );
}

export function api(clients: Clients, method: string, path: string, body?: unknown, options: { at?: number; sink?: RequestRecord[] } = {}) {
  return clients.balancer.send(
    options.at === undefined ? (method === 'PATCH' ? 'api write' : 'api setup') : 'check',
    `${clients.publicUrl}/api/v3/core${path}`,
    {
      method,
      headers: { Authorization: `Bearer ${clients.apiToken}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    options,
  );
}

// ------------------------------------------------------------------------------------------------ what clients do

/** Pages, then the code exchange; started over once when a step was lost in flight with the killed replica. */
export async function signIn(clients: Clients, person: Person): Promise<Chain | undefined> {
  for (let round = 1; round <= 2; round++) {
    const sink: RequestRecord[] = [];
    try {
      const http = new CookieClient(clients.balancer.sender('sign-in page', sink));
      const done = await httpSignIn(http, clients.app, clients.publicUrl, person.email, clients.password);
      const code = done.callback.searchParams.get('code');
      if (!code || done.callback.searchParams.get('state') !== done.request.state) throw new Error(`callback ${done.callback.search}`);
      const tokens = await redeemCode(clients.app, clients.publicUrl, done, clients.balancer.sender('code exchange', sink));
      const { access_token, refresh_token, id_token } = tokens.body ?? {};
      if (tokens.status !== 200 || !access_token || !refresh_token || !id_token)
        throw new Error(`code exchange ${tokens.status} ${JSON.stringify(tokens.body)}`);
      if (decodeJwt(id_token).sub !== person.uuid) throw new Error('id_token for someone else');
      count(clients, 'sign-ins');
      return { person, accessToken: access_token, refreshToken: refresh_token };
    } catch (error) {
      if (round === 1 && lostInFlight(sink)) {
        count(clients, 'sign-ins started over');
        continue;
      }
      problem(clients, 'sign-in', `${person.email}: ${describeError(error)}`);
    }
  }
  return undefined;
}

/** One refresh carrying the chain's last token; false when the chain ended (its rotation was lost in flight). */
export async function refresh(clients: Clients, chain: Chain): Promise<boolean> {
  const sink: RequestRecord[] = [];
  try {
    const response = await refreshGrant(clients, chain.refreshToken, { sink });
    const body = await json(response);
    if (response.status === 200 && body.refresh_token && body.access_token && body.refresh_token !== chain.refreshToken) {
      Object.assign(chain, { accessToken: body.access_token, refreshToken: body.refresh_token });
      return true;
    }
    if (response.status === 400 && body.error === 'invalid_grant' && lostInFlight(sink)) {
      count(clients, 'refreshes lost in flight');
      return false;
    }
    problem(clients, 'refresh', `${response.status} ${JSON.stringify(body)}`);
  } catch (error) {
    problem(clients, 'refresh', describeError(error));
  }
  return false;
}

export async function readUserinfo(clients: Clients, chain: Chain): Promise<void> {
  try {
    const response = await userinfo(clients, chain.accessToken);
    const body = await json(response);
    if (response.status !== 200 || body.sub !== chain.person.uuid)
      problem(clients, 'userinfo', `${response.status} ${JSON.stringify(body)}`);
  } catch (error) {
    problem(clients, 'userinfo', describeError(error));
  }
}

/** A PATCH of the person (idempotent: a retry sets the same values); what it acknowledges is expected in the database. */
export async function write(
  clients: Clients,
  person: Person,
  changes: { name?: string; is_active?: boolean },
  at?: number,
): Promise<boolean> {
  const event = changes.is_active === false ? 'user_deactivated' : 'user_updated';
  person.sent[event]++;
  try {
    const response = await api(clients, 'PATCH', `/users/${person.pk}/`, changes, { at });
    const body = await json(response);
    if (response.status === 200) {
      Object.assign(person.expected, changes);
      person.acked[event]++;
      return true;
    }
    problem(clients, 'api write', `${response.status} ${JSON.stringify(body)}`);
  } catch (error) {
    if (at !== undefined && error instanceof NoAnswer) throw error; // a check aimed at a replica that is gone
    problem(clients, 'api write', describeError(error));
  }
  return false;
}

// ------------------------------------------------------------------------------------------------ the checks

export type Check = 'revoke access token' | 'revoke refresh token' | 'deactivate' | 'replay rotated token';
export const CHECKS: Check[] = ['revoke access token', 'replay rotated token', 'deactivate', 'revoke refresh token'];

/** Each live replica answers UserInfo for the chain, so each holds its token, grant and person in memory. */
async function warm(clients: Clients, chain: Chain, replicas: number[]): Promise<string | undefined> {
  for (const at of replicas) {
    const response = await userinfo(clients, chain.accessToken, { at });
    await response.arrayBuffer();
    if (response.status !== 200) return `userinfo at replica ${at + 1} before the change: ${response.status}`;
  }
  return undefined;
}

/** At each of `replicas`, all at once: UserInfo 401 and a refresh invalid_grant. */
async function refusedElsewhere(clients: Clients, replicas: number[], accessToken: string, refreshToken: string) {
  const answers = await Promise.all([
    ...replicas.map(async (at) => ({ at, what: 'userinfo', response: await userinfo(clients, accessToken, { at }) })),
    ...replicas.map(async (at) => ({ at, what: 'refresh', response: await refreshGrant(clients, refreshToken, { at }) })),
  ]);
  const wrong: string[] = [];
  for (const { at, what, response } of answers) {
    const body = await json(response);
    const refused = what === 'userinfo' ? response.status === 401 : response.status === 400 && body.error === 'invalid_grant';
    if (!refused) wrong.push(`${what} at replica ${at + 1}: ${response.status} ${JSON.stringify(body).slice(0, 120)}`);
  }
  return wrong;
}

/**
 * Runs one check on a signed-in chain (which ends with it). A check cut short by the kill (a replica it aimed at
 * went away) proves nothing and is counted as such.
 */
export async function runCheck(clients: Clients, check: Check, chain: Chain, turn: number): Promise<void> {
  const live = clients.balancer.live();
  if (live.length < 2) return;
  const order = live.map((_, i) => live[(turn + i) % live.length]!);
  const [at, ...others] = order as [number, ...number[]];
  try {
    const cold = await warm(clients, chain, order);
    if (cold) return problem(clients, check, cold);
    let wrong: string[];
    if (check === 'revoke access token' || check === 'revoke refresh token') {
      const token = check === 'revoke access token' ? chain.accessToken : chain.refreshToken;
      const { client_id, client_secret } = clients.app;
      const response = await clients.balancer.send(
        'check',
        `${clients.publicUrl}/application/o/revoke/`,
        form({ token, client_id, client_secret }),
        {
          at,
        },
      );
      await response.arrayBuffer();
      if (response.status !== 200) return problem(clients, check, `revocation at replica ${at + 1}: ${response.status}`);
      wrong = await refusedElsewhere(clients, others, chain.accessToken, chain.refreshToken);
      clients.revoked.push({ kind: 'access', token: chain.accessToken }, { kind: 'refresh', token: chain.refreshToken });
    } else if (check === 'deactivate') {
      if (!(await write(clients, chain.person, { is_active: false }, at))) return;
      wrong = await refusedElsewhere(clients, others, chain.accessToken, chain.refreshToken);
      await write(clients, chain.person, { is_active: true }); // the next sign-in of this person is a new grant
      clients.revoked.push({ kind: 'access', token: chain.accessToken }, { kind: 'refresh', token: chain.refreshToken });
    } else {
      const rotated = await refreshGrant(clients, chain.refreshToken, { at });
      const body = await json(rotated);
      if (rotated.status !== 200)
        return problem(clients, check, `rotation at replica ${at + 1}: ${rotated.status} ${JSON.stringify(body)}`);
      // The old token at another replica: refused, and the grant ends — so the new tokens are refused everywhere too.
      const replayed = await refreshGrant(clients, chain.refreshToken, { at: others[0] });
      const answer = await json(replayed);
      wrong =
        replayed.status === 400 && answer.error === 'invalid_grant' ? [] : [`replay at replica ${others[0]! + 1}: ${replayed.status}`];
      wrong.push(...(await refusedElsewhere(clients, order, body.access_token, body.refresh_token)));
      clients.revoked.push({ kind: 'access', token: body.access_token }, { kind: 'refresh', token: body.refresh_token });
    }
    count(clients, `checks: ${check}`);
    if (wrong.length) problem(clients, check, `${chain.person.email}, changed at replica ${at + 1}: ${wrong.join('; ')}`);
  } catch (error) {
    if (!(error instanceof NoAnswer)) return problem(clients, check, describeError(error));
    count(clients, 'checks cut short by the kill');
    if (check === 'deactivate') await reactivate(clients, chain.person);
  }
}

/** After a deactivation cut short: it may or may not have been carried out, so the reactivation may change nothing (no event to expect). */
async function reactivate(clients: Clients, person: Person): Promise<void> {
  if (!person.expected.is_active) return void (await write(clients, person, { is_active: true }));
  person.sent.user_updated++;
  const response = await api(clients, 'PATCH', `/users/${person.pk}/`, { is_active: true }).catch((error: Error) => error);
  if (response instanceof Error || response.status !== 200)
    problem(clients, 'api write', `reactivation: ${response instanceof Error ? response.message : response.status}`);
  else await response.arrayBuffer();
}

// ------------------------------------------------------------------------------------------------ a client's loop

export interface LaneOptions {
  until: number;
  thinkMs: number;
  checkEvery: number;
  random: () => number;
  stopped(): boolean;
}

/** One client: its own people, their sign-ins, refreshes, UserInfo reads and renames, and every `checkEvery`th turn a check. */
export async function runLane(clients: Clients, lane: number, people: Person[], options: LaneOptions): Promise<void> {
  const chains: Chain[] = [];
  const pickOne = <T>(items: T[]) => items[Math.floor(options.random() * items.length)]!;
  let renames = 0;
  for (let turn = 1; clients.now() < options.until && !options.stopped(); turn++) {
    const roll = options.random();
    const signedOut = people.filter((person) => !chains.some((chain) => chain.person === person));
    if (turn % options.checkEvery === 0 && chains.length) {
      const chain = chains.splice(Math.floor(options.random() * chains.length), 1)[0]!;
      await runCheck(clients, CHECKS[(turn / options.checkEvery + lane) % CHECKS.length]!, chain, turn + lane);
    } else if (signedOut.length && (!chains.length || roll < 0.12)) {
      const chain = await signIn(clients, pickOne(signedOut));
      if (chain) chains.push(chain);
    } else if (roll < 0.4) {
      const chain = pickOne(chains);
      if (!(await refresh(clients, chain))) chains.splice(chains.indexOf(chain), 1);
    } else if (roll < 0.75) {
      await readUserinfo(clients, pickOne(chains));
    } else {
      await write(clients, pickOne(people), { name: `Scale ${lane}.${++renames}` });
    }
    await sleep(options.thinkMs * (0.5 + options.random()));
  }
}

/** After the run: every token a check revoked, at every live replica — none may answer. */
export async function sweepRevoked(clients: Clients): Promise<string[]> {
  const wrong: string[] = [];
  const replicas = clients.balancer.live();
  const results = await runBounded(clients.revoked.length, 8, async (i) => {
    const { kind, token } = clients.revoked[i]!;
    for (const at of replicas) {
      const response = kind === 'access' ? await userinfo(clients, token, { at }) : await refreshGrant(clients, token, { at });
      const body = await json(response);
      const refused = kind === 'access' ? response.status === 401 : response.status === 400 && body.error === 'invalid_grant';
      if (!refused) wrong.push(`${kind} token at replica ${at + 1}: ${response.status}`);
    }
  });
  for (const result of results) if (result.status === 'rejected') wrong.push(describeError(result.reason));
  return wrong;
}
