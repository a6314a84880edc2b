import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');

/**
 * The type errors of `files` (name → source, as if they were in `dir`, a folder of the repository), compiled with the
 * build's options: how tests show that what should not compile does not.
 */
export function typeErrors(dir: string, files: Record<string, string>): Record<string, string[]> {
  const { config } = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const virtual = new Map(Object.entries(files).map(([name, text]) => [path.join(root, dir, name), text]));
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
