import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Context, Next } from 'koa';
import { koaPath } from '../../src/openapi/operations';

const DOC_ID = 'urn:model-orchestration:contract';

/** What the service answered, as a client sees it. */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | number | undefined>;
}

interface Route {
  method: string;
  template: string;
  regex: RegExp;
}

/**
 * Checks responses against an OpenAPI document: the status must be one the operation declares, the JSON body
 * must match that response's schema, and the response's required headers must be present. Answers outside any
 * operation (unknown route, other method, preflight) must be the document's generic ones.
 */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ strictSchema: false, allErrors: true, allowUnionTypes: true });
  private readonly routes: Route[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: any) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components, paths: doc.paths });
    for (const [template, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item)) {
        this.routes.push({
          method: method.toUpperCase(),
          template,
          regex: new RegExp(`^${koaPath(template).replace(/:[a-z_]+/g, '[^/]+')}/?$`),
        });
      }
    }
  }

  /** The problems with one response; empty when it keeps the contract. */
  check(res: ObservedResponse): string[] {
    const where = `${res.method} ${res.path} → ${res.status}`;
    const pathname = res.path.split('?')[0];
    const route = this.routes.find((r) => r.method === res.method && r.regex.test(pathname));
    if (!route) return this.checkOutsideOperations(res, where, pathname);
    const responses = this.doc.paths[route.template][res.method.toLowerCase()].responses;
    if (!responses[res.status])
      return [`${where}: status not declared for ${res.method} ${route.template} (declared: ${Object.keys(responses).join(', ')})`];
    const declared = this.resolve(responses[res.status]);
    const problems: string[] = [];
    for (const [name, header] of Object.entries<any>(declared.headers ?? {})) {
      if (this.resolve(header).required && res.headers[name.toLowerCase()] === undefined)
        problems.push(`${where}: missing required header ${name}`);
    }
    const base =
      responses[res.status].$ref?.slice(1) ?? `/paths/${escape(route.template)}/${res.method.toLowerCase()}/responses/${res.status}`;
    return [...problems, ...this.checkBody(res, where, declared, `#${base}/content/application~1json/schema`)];
  }

  private checkOutsideOperations(res: ObservedResponse, where: string, pathname: string): string[] {
    if (res.method === 'OPTIONS' || res.method === 'HEAD') return [];
    // The document itself, the reference page and the operator console are not API operations.
    if (pathname === '/v2/openapi.json' || pathname === '/docs' || pathname.startsWith('/docs/')) return [];
    if (pathname === '/console' || pathname.startsWith('/console/')) return [];
    const known = this.routes.some((r) => r.regex.test(pathname));
    // Answered before routing: a known path with another method, an unknown path, or a body refused unread.
    const allowed = known ? [405, 400, 413] : [404, 400, 413];
    if (!allowed.includes(res.status)) return [`${where}: no operation ${res.method} ${pathname} in the document`];
    if (res.status === 405 && !res.headers.allow) return [`${where}: 405 without Allow`];
    return this.checkBody(res, where, { content: { 'application/json': {} } }, '#/components/schemas/ErrorResponse');
  }

  private checkBody(res: ObservedResponse, where: string, declared: any, schemaPointer: string): string[] {
    // A text answer (the Prometheus exposition of /metrics) is declared as a string of its media type.
    if (declared.content?.['text/plain'])
      return typeof res.body === 'string' ? [] : [`${where}: a text/plain body was declared, got ${typeof res.body}`];
    if (!declared.content?.['application/json'])
      return res.body === undefined || res.body === '' ? [] : [`${where}: body sent where the document declares none`];
    const validate = this.validator(`${DOC_ID}${schemaPointer}`);
    if (validate(res.body)) return [];
    return [
      `${where}: body does not match the document: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}; body ${JSON.stringify(res.body)?.slice(0, 300)}`,
    ];
  }

  private validator(ref: string): ValidateFunction {
    let fn = this.compiled.get(ref);
    if (!fn) {
      fn = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, fn);
    }
    return fn;
  }

  /** Follows a local `#/components/...` reference. */
  private resolve(node: any): any {
    if (!node?.$ref) return node;
    return node.$ref
      .slice(2)
      .split('/')
      .reduce((o: any, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }
}

function escape(template: string): string {
  return template.replace(/~/g, '~0').replace(/\//g, '~1').replace(/\{/g, '%7B').replace(/\}/g, '%7D');
}

/**
 * Koa middleware for the test app: every response the app sends is checked as it leaves, whoever made the
 * request (the harness, a raw fetch, the typed client). Problems are handed to `report`.
 */
export function contractMiddleware(checker: ContractChecker, report: (problems: string[], requestId: string | undefined) => void) {
  return async (ctx: Context, next: Next) => {
    await next();
    const isJson = /json/.test(ctx.response.type) && ctx.body !== undefined && ctx.body !== null;
    const body = isJson ? JSON.parse(JSON.stringify(ctx.body)) : typeof ctx.body === 'string' ? ctx.body : undefined;
    const problems = checker.check({ method: ctx.method, path: ctx.originalUrl, status: ctx.status, body, headers: ctx.response.headers });
    if (problems.length) report(problems, ctx.state.requestId);
  };
}
