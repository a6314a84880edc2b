import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ConsoleSettings } from '../console-settings';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// The browser may fetch only from this origin (the console calls the API it is served by, and works offline), and
// from the identity provider when OpenID Connect sign-in is configured (discovery and the token endpoint).
function contentSecurityPolicy(oidcIssuer?: string): string {
  const connect = oidcIssuer ? `'self' ${new URL(oidcIssuer).origin}` : "'self'";
  return `default-src 'self'; connect-src ${connect}; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
}

export interface ConsoleRouteOptions {
  /** The Vite build (`npm run build` writes dist/console). */
  assetsDir: string;
  settings: Omit<ConsoleSettings, 'devToken'>;
  /** `npm start` only: the dev admin token, handed to browsers on this machine by the "use the dev admin token" button. */
  devToken?: string;
}

/** Every file of the build, read once at start-up, by its path below /console/ (`assets/index-abc123.js`). */
function loadAssets(dir: string, prefix = '', assets = new Map<string, Buffer>()): Map<string, Buffer> {
  if (!existsSync(dir)) return assets;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) loadAssets(full, `${prefix}${entry.name}/`, assets);
    else if (entry.isFile()) assets.set(`${prefix}${entry.name}`, readFileSync(full));
  }
  return assets;
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/**
 * The operator console at /console: its built files (hashed assets cached for a year, the page never), the page
 * itself for every other path below /console (client-side routes), its settings, and in dev the dev token.
 */
export function registerConsoleRoutes(router: Router, options: ConsoleRouteOptions) {
  const assets = loadAssets(options.assetsDir);
  const settings: ConsoleSettings = { ...options.settings, devToken: options.devToken !== undefined };
  const csp = contentSecurityPolicy(settings.oidc?.issuer);

  router.get('/console/settings.json', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = settings;
  });
  if (options.devToken !== undefined) {
    const token = options.devToken;
    router.get('/console/dev-token', (ctx) => {
      // The socket's own address, not X-Forwarded-For (app.proxy trusts that header): only this machine's browsers.
      if (!isLoopback(ctx.req.socket.remoteAddress)) return; // falls through to the 404
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { token };
    });
  }
  const serve = (ctx: Context) => {
    const file = (ctx.params as { path?: string }).path ?? '';
    const asset = assets.get(file);
    if (asset && file !== 'index.html') {
      ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      ctx.set('Cache-Control', file.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
      ctx.body = asset;
      return;
    }
    if (path.extname(file)) return; // a missing file is a 404, not the page
    const page = assets.get('index.html');
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', csp);
    ctx.type = 'html';
    if (!page) {
      ctx.status = 503;
      ctx.body = '<!doctype html><title>Console not built</title><p>The console is not built: run <code>npm run build</code>.</p>';
      return;
    }
    ctx.body = page;
  };
  // The router matches /console/ here too (trailing slashes are optional): only the bare path is redirected.
  router.get('/console', (ctx) => (ctx.path === '/console' ? ctx.redirect('/console/') : serve(ctx)));
  router.get('/console/{*path}', serve);
}
