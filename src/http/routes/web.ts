// The web cabinet's files (built by scripts/build-web.mjs into dist/web/): read once, when this
// module is loaded at start, into memory with their gzip and ETag, so a request does no disk
// work. /cabinet/ and every /cabinet/<page> path answer index.html (the app routes by the path,
// so a reload or a shared address of any page works); /cabinet/assets/<name>-<hash>.* answer
// the bundle with a year-long cache (a new build has new names), index.html with no-cache
// (revalidated by ETag). Every answer carries the strict Content-Security-Policy (no inline
// script or style, nothing from elsewhere), nosniff and no-referrer. Paths under
// /cabinet/api/ are the API's: one that no API route took is the usual unknown_endpoint 404.
// A build without dist/web/ serves the API as before; /cabinet/ then answers 503
// cabinet_not_built saying how to build it (serve logs the same at start).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { installRoot } from '../../config/load.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Context, Handler } from '../state.js';

export const contentSecurityPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

export const webRoot = '/cabinet';
const assetsPrefix = `${webRoot}/assets/`;
const apiPrefix = `${webRoot}/api/`;

interface StaticFile {
  readonly body: Buffer;
  /** Only when it is smaller than the body. */
  readonly gzip: Buffer | undefined;
  readonly type: string;
  readonly etag: string;
}

export type WebBundle =
  | { readonly built: true; readonly directory: string; readonly index: StaticFile; readonly assets: ReadonlyMap<string, StaticFile> }
  | { readonly built: false; readonly directory: string; readonly reason: string };

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

function staticFile(body: Buffer, name: string): StaticFile {
  const gzip = gzipSync(body, { level: 9 });
  const type = types[path.extname(name)] ?? 'application/octet-stream';
  return { body, gzip: gzip.length < body.length ? gzip : undefined, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Reads a built cabinet (index.html and assets/*) into memory. */
export function loadWebBundle(directory: string): WebBundle {
  const indexPath = path.join(directory, 'index.html');
  if (!existsSync(indexPath)) return { built: false, directory, reason: `${indexPath} is missing` };
  const assets = new Map<string, StaticFile>();
  const assetsDirectory = path.join(directory, 'assets');
  if (existsSync(assetsDirectory)) {
    for (const entry of readdirSync(assetsDirectory, { withFileTypes: true })) {
      if (entry.isFile()) assets.set(entry.name, staticFile(readFileSync(path.join(assetsDirectory, entry.name)), entry.name));
    }
  }
  return { built: true, directory, index: staticFile(readFileSync(indexPath), 'index.html'), assets };
}

/** The cabinet of this installation (dist/web beside dist/src), read as the server starts. */
export const installedWebBundle: WebBundle = loadWebBundle(path.join(installRoot, 'dist', 'web'));

/** How to get the cabinet when this installation has none (for the log line at start and the 503). */
export function notBuiltMessage(bundle: WebBundle & { built: false }): string {
  return `The web cabinet is not built in this installation (${bundle.reason}). Build it with \`npm run build\` in ${installRoot} (or use a release package or the container image, which include it), then restart the gateway. The API under /v1 works without it.`;
}

function send(ctx: Context, file: StaticFile, cacheControl: string): void {
  ctx.set('Content-Security-Policy', contentSecurityPolicy);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', cacheControl);
  ctx.set('Vary', 'Accept-Encoding');
  ctx.status = 200;
  ctx.etag = file.etag;
  ctx.type = file.type;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (file.gzip && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = file.gzip;
  } else ctx.body = file.body;
}

/** GET /cabinet/… of a given bundle (the route table uses the installed one). */
export function webHandler(bundle: WebBundle): Handler {
  return (ctx) => {
    if (ctx.path.startsWith(apiPrefix)) return; // no API route took it: unknown_endpoint
    if (!bundle.built) throw new GatewayError('cabinet_not_built', notBuiltMessage(bundle));
    if (ctx.path.startsWith(assetsPrefix)) {
      const file = bundle.assets.get(ctx.path.slice(assetsPrefix.length));
      if (file) send(ctx, file, 'public, max-age=31536000, immutable');
      return; // an asset of another build: unknown_endpoint, never index.html under a script's name
    }
    send(ctx, bundle.index, 'no-cache');
  };
}

export const serveCabinet: Handler = webHandler(installedWebBundle);

/** GET /cabinet: the cabinet's address (GET / is routes/cabinet-auth.ts's). */
export const redirectToCabinet: Handler = (ctx) => {
  ctx.redirect(`${webRoot}/`); // 302
};
