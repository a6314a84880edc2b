import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectErrors, typeErrors } from '../../helpers/type-errors';

const root = path.resolve(__dirname, '../../..');
const clientDir = path.join(root, 'client');

/** A call of the service init route with `body` (and `pathParams`) in place of the example's. */
const initCall = (body: string, pathParams = "{ client_id: 'acme', domain_id: 'flights' }") => `
import { createApiClient } from './index';
export async function call() {
  const api = createApiClient({ baseUrl: 'http://localhost:8080', token: 't' });
  return api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', { params: { path: ${pathParams} }, body: ${body} });
}
`;
const VALID_BODY = "{ service_id: 'LH-400', departure_datetime: '2031-07-01T09:30:00Z', static_features: { seats: 180 } }";

describe("the typed client's README", () => {
  it('shows client/example.ts as it is, so the example it shows is the one compiled and run', () => {
    const readme = readFileSync(path.join(clientDir, 'README.md'), 'utf8');
    const shown = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code]) => code);
    expect(shown).toEqual([readFileSync(path.join(clientDir, 'example.ts'), 'utf8')]);
  });

  it('holds what it claims: wrong paths, missing fields and wrongly typed values do not compile; unknown fields do', () => {
    const errors = typeErrors('client', {
      'example-as-shipped.ts': readFileSync(path.join(clientDir, 'example.ts'), 'utf8'),
      'valid.ts': initCall(VALID_BODY),
      'unknown-path.ts': initCall(VALID_BODY).replace('/service/init', '/service/start'),
      'missing-field.ts': initCall("{ departure_datetime: '2031-07-01T09:30:00Z', static_features: {} }"),
      'wrong-type.ts': initCall("{ service_id: 'LH-400', departure_datetime: 20310701, static_features: {} }"),
      'missing-path-param.ts': initCall(VALID_BODY, "{ client_id: 'acme' }"),
      'unknown-field.ts': initCall(VALID_BODY.replace(' }', ", nmae: 'typo' }")),
    });
    expect(errors).toMatchObject({ 'example-as-shipped.ts': [], 'valid.ts': [], 'unknown-field.ts': [] });
    expect(
      ['unknown-path.ts', 'missing-field.ts', 'wrong-type.ts', 'missing-path-param.ts'].filter((file) => errors[file].length === 0),
    ).toEqual([]);
  });

  /**
   * The type errors of the client and its example copied into a project of their own, `package.json` and
   * `tsconfig.json` as given (`tsconfig: undefined`: what `tsc --init` writes today), compiled as tsc compiles them.
   * Only the client's own files are checked: with `skipLibCheck` off tsc would also check every declaration file of
   * TypeScript and @types/node, which the client cannot break, and that check is most of the time a run takes.
   */
  function compiledInProject(type: 'module' | 'commonjs', tsconfig?: object): string {
    const tmp = mkdtempSync(path.join(os.tmpdir(), `mos-client-${type}-`));
    try {
      mkdirSync(path.join(tmp, 'client'));
      for (const file of ['index.ts', 'schema.d.ts', 'example.ts'])
        copyFileSync(path.join(clientDir, file), path.join(tmp, 'client', file));
      symlinkSync(path.join(root, 'node_modules'), path.join(tmp, 'node_modules'));
      writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ type }));
      if (tsconfig) writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify(tsconfig));
      else {
        execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['--init'], { cwd: tmp });
        // A Node project: the example reads process.env.
        const init = readFileSync(path.join(tmp, 'tsconfig.json'), 'utf8');
        writeFileSync(path.join(tmp, 'tsconfig.json'), init.replace('"types": []', '"types": ["node"]'));
      }
      return projectErrors(tmp, path.join(tmp, 'client'));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  it('compiles in an ES module project as tsc --init sets one up today (module nodenext, verbatimModuleSyntax)', () => {
    expect(compiledInProject('module')).toBe('');
  });

  it('compiles in a CommonJS project', () => {
    expect(
      compiledInProject('commonjs', {
        compilerOptions: { module: 'commonjs', target: 'es2022', strict: true, types: ['node'], esModuleInterop: true },
      }),
    ).toBe('');
  });
});
