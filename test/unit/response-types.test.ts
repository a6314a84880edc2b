import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const routesDir = path.join(root, 'src', 'routes');

/** The type errors of route modules (name → source, as if they were in src/routes/), compiled with the build's options. */
function typeErrors(files: Record<string, string>): Record<string, string[]> {
  const { config } = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const virtual = new Map(Object.entries(files).map(([name, text]) => [path.join(routesDir, name), text]));
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

/** A route module whose liveness handler answers `body`. */
const liveness = (body: string) => `
import type { Register } from './types';
export function register(route: Register) {
  route('getLiveness', async () => (${body}));
}
`;

describe("a route handler's answer", () => {
  it("is the document's success body of its operation, checked at compile time", () => {
    const errors = typeErrors({
      'documented.ts': liveness("{ status: 'ok' as const }"),
      'undocumented-value.ts': liveness("{ status: 'sleeping' as const }"),
      'missing-field.ts': liveness('{}'),
      'wrong-type.ts': liveness('{ status: 1 }'),
    });
    expect(errors['documented.ts']).toEqual([]);
    for (const file of ['undocumented-value.ts', 'missing-field.ts', 'wrong-type.ts']) {
      expect(errors[file].join('\n')).toMatch(/is not assignable/);
    }
  });
});
