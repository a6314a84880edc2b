import type Router from '@koa/router';

const page = (specUrl: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Model Orchestration Service API</title>
<style>body{font:14px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem}
code{background:#f3f3f3;padding:0 .2rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;vertical-align:top}
.m{font-weight:600;font-family:monospace}</style></head>
<body><h1>Model Orchestration Service API v2</h1>
<p>The OpenAPI 3.1 document is at <a href="${specUrl}"><code>${specUrl}</code></a>; load it into any OpenAPI viewer or client generator.</p>
<table id="ops"><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Permission</th></tr></thead><tbody></tbody></table>
<script>
fetch(${JSON.stringify(specUrl)}).then(r => r.json()).then(doc => {
  const body = document.querySelector('#ops tbody');
  for (const [path, item] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(item)) {
    const tr = document.createElement('tr');
    for (const [text, cls] of [[method.toUpperCase(), 'm'], [path, 'm'], [op.summary, ''], [op['x-permission'], '']]) {
      const td = document.createElement('td'); td.textContent = text; td.className = cls; tr.appendChild(td);
    }
    body.appendChild(tr);
  }
});
</script></body></html>`;

/** Public: the OpenAPI document and a page listing its operations. */
export function registerDocsRoutes(router: Router, document: object) {
  router.get('/v2/openapi.json', (ctx) => {
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = page('/v2/openapi.json');
  });
}
