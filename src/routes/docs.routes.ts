import { readFileSync } from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Model Orchestration Service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>body{margin:0}</style></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>`;

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

// Starts Swagger UI on the document this service serves. A file, not inline, so a strict CSP can allow it.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v2/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    persistAuthorization: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    validatorUrl: null, // the default would send the document to validator.swagger.io
  });
});
`;

/** Swagger UI's files from node_modules (no CDN: the reference works offline), read once at start-up. */
function loadAssets(): Map<string, Buffer> {
  const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Buffer>([['init.js', Buffer.from(INIT)]]);
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) assets.set(file, readFileSync(path.join(dist, file)));
  return assets;
}

/** Public: the OpenAPI document, and an interactive reference (Swagger UI) where a user pastes a token and tries calls. */
export function registerDocsRoutes(router: Router, document: object) {
  const assets = loadAssets();
  router.get('/v2/openapi.json', (ctx) => {
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = PAGE;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const asset = assets.get(ctx.params.file);
    if (!asset) return; // falls through to the 404
    ctx.type = TYPES[path.extname(ctx.params.file)];
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset;
  });
}
