/**
 * The console's applications, read-only: what the configuration declares (applications are configuration-as-code),
 * with the discovery URL to copy and the application's recent deliveries.
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import type { ApplicationSettings } from '../settings/schema.js';
import { listDeliveries } from '../domain/deliveries.js';
import { renderConsole, notFound } from './frame.js';

type Context = AccountContext & { params: Record<string, string> };

const list = (values: readonly string[] | undefined) => (values?.length ? values.join(', ') : 'none');

export function showApplications(deps: AccountDeps) {
  return async function showApplications(ctx: AccountContext) {
    renderConsole(ctx, 'applications', {
      heading: 'Applications',
      lead: 'Applications are declared in the configuration; change them there and restart.',
      blocks: [
        {
          table: {
            caption: 'Applications',
            empty: 'No application is configured.',
            columns: ['Name', 'Slug', 'Client', 'Access group'],
            rows: deps.settings.applications.map((app) => [
              { text: app.name, href: `/admin/applications/${app.slug}/` },
              app.slug,
              app.client_type ?? 'confidential',
              app.access_group ?? 'everyone',
            ]),
          },
        },
      ],
    });
  };
}

export function showApplication(deps: AccountDeps) {
  return async function showApplication(ctx: Context) {
    const app: ApplicationSettings | undefined = deps.settings.applications.find((candidate) => candidate.slug === ctx.params.slug);
    if (!app)
      throw notFound('No such application', 'The configuration declares no application with this slug.', {
        href: '/admin/applications/',
        label: 'Back to applications',
      });
    const issuer = `${deps.settings.issuer.base_url}/application/o/${app.slug}/`;
    const lifetimes = { ...deps.settings.tokens, ...app.tokens };
    const deliveries = await listDeliveries(deps.store, { app: app.slug }, { offset: 0, limit: 10 });
    renderConsole(ctx, 'applications', {
      heading: app.name,
      lead: `Discovery: ${issuer}.well-known/openid-configuration`,
      blocks: [
        {
          dl: [
            ['Issuer', issuer],
            ['Client id', app.client_id],
            ['Client type', app.client_type ?? 'confidential'],
            ['Grant types', list(app.grant_types)],
            ['Redirect URIs', list(app.redirect_uris)],
            ['After sign-out', list(app.post_logout_redirect_uris)],
            ['Access group', app.access_group ?? 'everyone may sign in'],
            ['Second factor', app.require_mfa ? 'required' : 'when the person has one'],
            ['Access token', `${lifetimes.access_token_ttl} s`],
            ['ID token', `${lifetimes.id_token_ttl} s`],
            ['Refresh token', `${lifetimes.refresh_token_ttl} s`],
            ['Webhook', app.webhook ? `${app.webhook.url} (${list(app.webhook.events)})` : 'none'],
            ['Backchannel logout', app.backchannel_logout_uri ?? 'none'],
          ],
        },
        {
          title: 'Recent deliveries',
          id: 'deliveries',
          table: {
            caption: `The newest deliveries to ${app.name}`,
            empty: 'Nothing was delivered to it yet.',
            columns: ['When (UTC)', 'Kind', 'Event', 'Status'],
            rows: deliveries.results.map((delivery) => [
              { text: delivery.created_at.slice(0, 19).replace('T', ' '), href: `/admin/deliveries/${delivery.id}/` },
              delivery.kind,
              delivery.event_type ?? '',
              delivery.status,
            ]),
          },
          links: [{ href: `/admin/deliveries/?app=${encodeURIComponent(app.slug)}`, label: 'All its deliveries' }],
        },
      ],
    });
  };
}
