/**
 * What a SCIM client reads to learn this server (RFC 7644 §4): ServiceProviderConfig (PATCH and filters yes;
 * bulk, sorting and password changes no; ETags yes), ResourceTypes (User with the enterprise extension, Group)
 * and Schemas (the attribute table of schemas.ts).
 */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import { notFound } from './errors.js';
import { scimBase } from './meta.js';
import {
  CORE_GROUP,
  CORE_USER,
  ENTERPRISE_USER,
  enterpriseAttributes,
  groupAttributes,
  LIST_RESPONSE,
  RESOURCE_TYPE,
  SCHEMA,
  SERVICE_PROVIDER_CONFIG,
  userAttributes,
} from './schemas.js';

const list = (resources: unknown[]) => ({
  schemas: [LIST_RESPONSE],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

export function discoveryRoutes(router: Router, settings: Settings): void {
  const base = scimBase(settings.issuer.base_url);

  const serviceProviderConfig = {
    schemas: [SERVICE_PROVIDER_CONFIG],
    documentationUri: 'https://datatracker.ietf.org/doc/html/rfc7644',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: settings.api.max_page_size },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'An API token with the scim scope (idp tokens create --scope scim), sent as Authorization: Bearer <token>.',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };

  const resourceTypes = [
    {
      schemas: [RESOURCE_TYPE],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person who signs in.',
      schema: CORE_USER,
      schemaExtensions: [{ schema: ENTERPRISE_USER, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A set of users; an application may admit the members of one group only.',
      schema: CORE_GROUP,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];

  const schemas = [
    { id: CORE_USER, name: 'User', description: 'User account', attributes: userAttributes },
    { id: ENTERPRISE_USER, name: 'EnterpriseUser', description: 'Enterprise user', attributes: enterpriseAttributes },
    { id: CORE_GROUP, name: 'Group', description: 'Group', attributes: groupAttributes },
  ].map((schema) => ({ schemas: [SCHEMA], ...schema, meta: { resourceType: 'Schema', location: `${base}/Schemas/${schema.id}` } }));

  router.get('/ServiceProviderConfig', (ctx) => {
    ctx.body = serviceProviderConfig;
  });
  router.get('/ResourceTypes', (ctx) => {
    ctx.body = list(resourceTypes);
  });
  router.get('/ResourceTypes/:id', (ctx) => {
    const found = resourceTypes.find((type) => type.id.toLowerCase() === ctx.params.id!.toLowerCase());
    if (!found) throw notFound('ResourceType', ctx.params.id!.slice(0, 64));
    ctx.body = found;
  });
  router.get('/Schemas', (ctx) => {
    ctx.body = list(schemas);
  });
  router.get('/Schemas/:id', (ctx) => {
    const found = schemas.find((schema) => schema.id.toLowerCase() === ctx.params.id!.toLowerCase());
    if (!found) throw notFound('Schema', ctx.params.id!.slice(0, 64));
    ctx.body = found;
  });
}
