/**
 * GET /api/v3/schema/: the OpenAPI document, JSON or (`?format=yaml`) YAML. No token, like authentik's: the
 * document describes the API, it holds no data. Both texts are made once, on the first request.
 */
import Router from '@koa/router';
import { dump } from 'js-yaml';
import { buildOpenApi, schemaQuery } from './openapi.js';
import { validateQuery } from '../http/validate.js';

export function schemaRouter(baseUrl: string): Router {
  let texts: { json: string; yaml: string } | undefined;
  const router = new Router({ prefix: '/api/v3' });
  router.get('/schema/', (ctx) => {
    const { format } = validateQuery<{ format: 'json' | 'yaml' }>(schemaQuery, ctx.query);
    if (!texts) {
      const document = buildOpenApi(baseUrl);
      // noRefs: the components share schema objects; YAML anchors would be valid but unreadable for people.
      texts = { json: JSON.stringify(document), yaml: dump(document, { noRefs: true, lineWidth: 120 }) };
    }
    ctx.type = format === 'yaml' ? 'application/yaml' : 'application/json';
    ctx.body = texts[format];
  });
  return router;
}
