/**
 * Pages the engine writes itself (its self-submitting form_post: switching accounts, ending a session) get the
 * pages' policy. The engine adds its one inline script's hash to a script-src it finds; only that hash is kept,
 * so no other script can run there. Our own pages replace this header with theirs.
 */
import type { Context } from 'koa';

const ENGINE_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** script-src keeps only the hashes the engine added; without any, no script at all. */
function onlyHashedScripts(policy: string): string {
  return policy
    .split(';')
    .map((directive) => directive.trim())
    .flatMap((directive) => {
      if (!directive.startsWith('script-src')) return [directive];
      const hashes = directive.split(/\s+/).filter((source) => source.startsWith("'sha256-"));
      return hashes.length ? [`script-src ${hashes.join(' ')}`] : [];
    })
    .join('; ');
}

/** What the policy becomes when the engine added nothing (every JSON answer): computed once. */
const WITHOUT_SCRIPTS = onlyHashedScripts(ENGINE_PAGE_CSP);

export async function withEnginePagePolicy(ctx: Context, run: () => Promise<void>): Promise<void> {
  ctx.set('Content-Security-Policy', ENGINE_PAGE_CSP);
  try {
    await run();
  } finally {
    const policy = ctx.response.get('Content-Security-Policy');
    if (policy === ENGINE_PAGE_CSP) ctx.set('Content-Security-Policy', WITHOUT_SCRIPTS);
    else if (/(^|;)\s*script-src 'self'/.test(policy)) ctx.set('Content-Security-Policy', onlyHashedScripts(policy));
  }
}
