/**
 * The remote directory of domain/provisioning.ts over HTTP: an application's SCIM 2.0 server, with its bearer
 * token, a hard timeout per request, no redirects, and the same https rule as webhooks. An answer that is no
 * success becomes a RemoteFailure carrying its status (the delivery log shows it; 5xx, 429 and network errors are
 * retried with the deliveries' backoff).
 */
import { isSecureOrLoopbackUrl } from '../loopback.js';
import { RemoteFailure, type RemoteDirectory, type Resource } from '../domain/provisioning.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface ScimClientOptions {
  /** The base URL, e.g. https://app.example.com/scim/v2. */
  url: string;
  token: string;
  timeoutMs: number;
  allowInsecureLoopback: boolean;
}

type Answer = { status: number; body: any };

export function scimClient(options: ScimClientOptions): RemoteDirectory {
  const base = options.url.replace(/\/+$/, '');

  async function call(method: string, path: string, body?: unknown, ok: number[] = []): Promise<Answer> {
    const url = `${base}${path}`;
    if (!isSecureOrLoopbackUrl(url, options.allowInsecureLoopback)) throw new RemoteFailure(null, 'refused: SCIM endpoints must use https');
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          Authorization: `Bearer ${options.token}`,
          Accept: 'application/scim+json, application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/scim+json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
      throw new RemoteFailure(
        null,
        name === 'TimeoutError' ? `timeout after ${options.timeoutMs} ms` : (cause?.code ?? cause?.message ?? message),
      );
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if ((response.status >= 200 && response.status < 300) || ok.includes(response.status)) return { status: response.status, body: parsed };
    const detail = (parsed as { detail?: unknown } | undefined)?.detail;
    throw new RemoteFailure(
      response.status,
      `${method} ${path} answered ${response.status}${typeof detail === 'string' ? `: ${detail.slice(0, 200)}` : ''}`,
    );
  }

  const idOf = (answer: Answer, what: string): string => {
    const id = (answer.body as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string' || !id) throw new RemoteFailure(answer.status, `the receiver created the ${what} without answering its id`);
    return id;
  };

  async function findOne(resource: 'Users' | 'Groups', filter: string): Promise<string | undefined> {
    const answer = await call('GET', `/${resource}?filter=${encodeURIComponent(filter)}&count=1&attributes=id`);
    const found = (answer.body as { Resources?: Array<{ id?: unknown }> } | undefined)?.Resources?.[0]?.id;
    return typeof found === 'string' ? found : undefined;
  }

  const quoted = (value: string) => JSON.stringify(value);
  const gone = (answer: Answer) => (answer.status === 404 ? 'gone' : 'ok');

  return {
    async findUser(externalId, userName) {
      return (
        (await findOne('Users', `externalId eq ${quoted(externalId)}`)) ??
        (userName === undefined ? undefined : await findOne('Users', `userName eq ${quoted(userName)}`))
      );
    },
    async createUser(user: Resource) {
      const answer = await call('POST', '/Users', user, [409]);
      return answer.status === 409 ? 'conflict' : idOf(answer, 'user');
    },
    async replaceUser(id, user: Resource) {
      return gone(await call('PUT', `/Users/${encodeURIComponent(id)}`, user, [404]));
    },
    async deactivateUser(id) {
      const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] };
      return gone(await call('PATCH', `/Users/${encodeURIComponent(id)}`, body, [404]));
    },
    async findGroup(externalId, displayName) {
      return (
        (await findOne('Groups', `externalId eq ${quoted(externalId)}`)) ??
        (await findOne('Groups', `displayName eq ${quoted(displayName)}`))
      );
    },
    async createGroup(group: Resource) {
      const answer = await call('POST', '/Groups', group, [409]);
      return answer.status === 409 ? 'conflict' : idOf(answer, 'group');
    },
    async changeMember(groupId, op, userId) {
      const operation =
        op === 'add'
          ? { op: 'add', path: 'members', value: [{ value: userId }] }
          : { op: 'remove', path: `members[value eq ${quoted(userId)}]` };
      return gone(await call('PATCH', `/Groups/${encodeURIComponent(groupId)}`, { schemas: [PATCH_OP], Operations: [operation] }, [404]));
    },
    async renameGroup(id, displayName) {
      const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: displayName }] };
      return gone(await call('PATCH', `/Groups/${encodeURIComponent(id)}`, body, [404]));
    },
    async deleteGroup(id) {
      return gone(await call('DELETE', `/Groups/${encodeURIComponent(id)}`, undefined, [404]));
    },
  };
}
