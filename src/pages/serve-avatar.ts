/**
 * GET /avatars/{uuid}.svg: a generated avatar for users without one of their own. Derived from the uuid
 * only (a colour and a silhouette), so it needs no lookup and reveals nothing about the user.
 */
import { UUID } from '../uuid.js';
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';

const PATH = new RegExp(`^/avatars/(${UUID.source.slice(1, -1)})\\.svg$`, 'i');

export function avatarSvg(uuid: string): string {
  const hue = createHash('sha256').update(uuid.toLowerCase()).digest().readUInt16BE(0) % 360;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">` +
    `<rect width="128" height="128" fill="hsl(${hue} 55% 45%)"/>` +
    `<circle cx="64" cy="50" r="22" fill="hsl(${hue} 60% 88%)"/>` +
    `<path d="M24 118c4-24 20-36 40-36s36 12 40 36z" fill="hsl(${hue} 60% 88%)"/></svg>`
  );
}

export async function serveAvatar(ctx: Context, next: Next) {
  const match = PATH.exec(ctx.path);
  if (!match || !['GET', 'HEAD'].includes(ctx.method)) return next();
  ctx.type = 'image/svg+xml';
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  ctx.body = avatarSvg(match[1]!);
}
