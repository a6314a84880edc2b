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

/**
 * The errors tsc reports for the project in `dir` (its tsconfig.json) that lie in files under `within`, formatted as
 * tsc prints them, with the errors of the options and the global ones; '' when there are none.
 */
export function projectErrors(dir: string, within: string): string {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(dir, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error(`no tsconfig.json in ${dir}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, configFileParsingDiagnostics: config.errors });
  const own = program.getSourceFiles().filter((file) => file.fileName.startsWith(`${within}${path.sep}`));
  if (own.length === 0) throw new Error(`the project in ${dir} compiles no file under ${within}`);
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ];
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => dir,
    getNewLine: () => '\n',
  });
}
