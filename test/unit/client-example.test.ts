import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const clientDir = path.join(root, 'client');

/** The type errors of `files` (path → source, as if they were in client/), compiled with the repository's options. */
function typeErrors(files: Record<string, string>): Record<string, string[]> {
  const { config } = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const virtual = new Map(Object.entries(files).map(([name, text]) => [path.join(clientDir, name), text]));
  const base = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...base,
    fileExists: (file) => virtual.has(file) || base.fileExists(file),
    readFile: (file) => virtual.get(file) ?? base.readFile(file),
    getSourceFile: (file, language, ...rest) => {
      const text = virtual.get(file);
      return text === undefined ? base.getSourceFile(file, language, ...rest) : ts.createSourceFile(file, text, language);
    },
  };
  const program = ts.createProgram([...virtual.keys()], { ...options, noEmit: true }, host);
  return Object.fromEntries(
    [...virtual.keys()].map((file) => [
      path.basename(file),
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    ]),
  );
}

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
    const errors = typeErrors({
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
});
