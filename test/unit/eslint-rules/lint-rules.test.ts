import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Linter, RuleTester } from 'eslint';
import * as tsParser from '@typescript-eslint/parser';
import tsPlugin from '@typescript-eslint/eslint-plugin';

/* eslint-disable @typescript-eslint/no-require-imports -- the rules are CommonJS so that eslint.config.mjs and jest share them */
const { rules } = require('../../../eslint-rules/architecture.js') as { rules: Record<string, import('eslint').Rule.RuleModule> };

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });
/** TypeScript's syntax (RuleTester applies its own parser option to .js files only). */
const typescript = { parser: tsParser };

/** A small project on disk: the import rules resolve the files an import names. */
const root = mkdtempSync(path.join(os.tmpdir(), 'lint-rules-'));
function file(relative: string, text = 'export const x = 1;\n') {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
  return full;
}
file('src/domain/jobs/index.ts', "export { start } from './launch/start';\n");
file('src/domain/jobs/launch/start.ts', "import { toView } from '../../common';\nexport const start = () => toView();\n");
file('src/domain/jobs/run/outcomes.ts');
file('src/domain/common/index.ts', "export { toView } from './views';\n");
file('src/domain/common/views.ts', 'export const toView = () => 1;\n');
file('src/domain/models/index.ts', "export { model } from './models.service';\n");
file('src/domain/models/models.service.ts', 'export const model = 1;\n');
file('src/routes/jobs.routes.ts');
// a.ts → b.ts → a.ts through values; c.ts → d.ts → c.ts through a type only
file('src/cycle/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
file('src/cycle/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
file('src/cycle/c.ts', "import { d } from './d';\nexport type C = number;\nexport const c = d;\n");
file('src/cycle/d.ts', "import type { C } from './c';\nexport const d: C = 1;\n");
file('src/domain/x/index.ts', "export { p } from './p';\n");
file('src/domain/x/p.ts', "import { q } from '../y';\nexport const p = () => q;\n");
file('src/domain/y/index.ts', "export { q } from './q';\n");
file('src/domain/y/q.ts', "import { p } from '../x';\nexport const q = () => p;\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('architecture/concept-faces', () => {
  tester.run('concept-faces', rules['concept-faces'], {
    valid: [
      { filename: path.join(root, 'src/routes/jobs.routes.ts'), code: "import { start } from '../domain/jobs';" },
      { filename: path.join(root, 'src/domain/models/models.service.ts'), code: "import { toView } from '../common';" },
      // inside one concept, across its own subfolders
      { filename: path.join(root, 'src/domain/jobs/run/outcomes.ts'), code: "import { start } from '../launch/start';" },
    ],
    invalid: [
      {
        filename: path.join(root, 'src/routes/jobs.routes.ts'),
        code: "import { start } from '../domain/jobs/launch/start';",
        errors: [{ messageId: 'face' }],
      },
      {
        filename: path.join(root, 'src/domain/models/models.service.ts'),
        code: "import { toView } from '../common/views';",
        errors: [{ messageId: 'face' }],
      },
      {
        filename: path.join(root, 'src/domain/models/models.service.ts'),
        code: "export { start } from '../jobs/launch/start';",
        errors: [{ messageId: 'face' }],
      },
    ],
  });
});

describe('architecture/no-import-cycle', () => {
  tester.run('no-import-cycle', rules['no-import-cycle'], {
    valid: [
      // a type-only import is erased: it cannot make a load-order cycle
      { filename: path.join(root, 'src/cycle/d.ts'), code: "import type { C } from './c';", languageOptions: typescript },
      { filename: path.join(root, 'src/cycle/d.ts'), code: "import { type C } from './c';", languageOptions: typescript },
      { filename: path.join(root, 'src/domain/jobs/launch/start.ts'), code: "import { toView } from '../../common';" },
    ],
    invalid: [
      { filename: path.join(root, 'src/cycle/a.ts'), code: "import { b } from './b';", errors: [{ messageId: 'cycle' }] },
      // two concepts reaching each other through their faces: p.ts → y/index.ts → q.ts → x/index.ts → p.ts
      { filename: path.join(root, 'src/domain/x/p.ts'), code: "import { q } from '../y';", errors: [{ messageId: 'cycle' }] },
    ],
  });
});

describe('architecture/no-sleep-then-assert', () => {
  const timer = 'await new Promise((r) => setTimeout(r, 1500));';
  tester.run('no-sleep-then-assert', rules['no-sleep-then-assert'], {
    valid: [
      // a poll loop, a sleep inside a stand-in, a sleep followed by an event wait, and a declared clock rule
      { code: `async function t() { for (let i = 0; i < 100 && calls.length === 0; i++) ${timer} expect(calls).toHaveLength(1); }` },
      { code: `const finishJob = async () => { ${timer} return { status: 'success' }; };` },
      { code: "async function t() { await sleep(3000); await eventually(async () => done, 1000, 'done'); expect(done).toBe(true); }" },
      {
        code: 'async function t() { await sleep(1100); // clock: the failed fetch is not repeated within the refetch interval\n expect(x).toBe(200); }',
      },
    ],
    invalid: [
      // "still once" after a fixed sleep
      {
        code: `async function t() { expect(await launch()).toBe('existing'); ${timer} expect(dispatches.get(jobId)).toBe(1); }`,
        errors: [{ messageId: 'sleep' }],
      },
      // "nothing else arrived" after a fixed sleep, a few statements on
      {
        code: "async function t() { await eventually(f, 20000, 'x'); await pause(500); const keys = requests().map((r) => r.key); expect(keys).toEqual(['kept']); }",
        errors: [{ messageId: 'sleep' }],
      },
    ],
  });
});

/**
 * The layer rules of eslint.config.mjs, as the configuration gives them to a file at each path: computed by ESLint in
 * a process of its own (the configuration is an ES module), then run here on sample imports without type information.
 */
describe('the layer rules of eslint.config.mjs', () => {
  const LAYER_RULES = ['no-restricted-imports', '@typescript-eslint/no-restricted-imports'];
  const samples = ['src/domain/ports/sample.port.ts', 'src/domain/jobs/sample.ts', 'src/db/sample.repository.ts'];
  let rulesOf: Record<string, Linter.RulesRecord>;
  beforeAll(() => {
    const script = `
      const { ESLint } = require('eslint');
      (async () => {
        const eslint = new ESLint({ cwd: process.cwd() });
        const out = {};
        for (const file of ${JSON.stringify(samples)}) {
          const { rules } = await eslint.calculateConfigForFile(file);
          out[file] = Object.fromEntries(${JSON.stringify(LAYER_RULES)}.filter((r) => rules[r]).map((r) => [r, rules[r]]));
        }
        process.stdout.write(JSON.stringify(out));
      })();`;
    rulesOf = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '../../..'), encoding: 'utf8' }));
  }, 20000);

  /** The layer rules' messages for `code` in a file at `file`. */
  function lint(file: string, code: string): string[] {
    const config = {
      files: ['**/*.ts'],
      plugins: { '@typescript-eslint': tsPlugin as never },
      languageOptions: { parser: tsParser },
      rules: rulesOf[file],
    };
    return new Linter().verify(code, [config], { filename: file }).map((m) => m.message);
  }

  it('refuses a port that imports src/db, even a type', () => {
    const port = 'src/domain/ports/sample.port.ts';
    expect(lint(port, "import type { JobView } from '../../db/jobs.repository';")).toEqual([
      expect.stringMatching(/cannot import src\/db/),
    ]);
    expect(lint(port, "import { jobStore } from '../../db/job-store';")).toHaveLength(1);
    // the domain's own types, through the concept's face
    expect(lint(port, "import type { JobView } from '../jobs';")).toEqual([]);
  });

  it('leaves the rest of the domain its imports of src/db', () => {
    expect(lint('src/domain/jobs/sample.ts', "import * as repo from '../../db/jobs.repository';")).toEqual([]);
  });

  it("lets the repositories import the domain's types, and no domain code", () => {
    const repository = 'src/db/sample.repository.ts';
    expect(lint(repository, "import type { JobView } from '../domain/jobs';")).toEqual([]);
    expect(lint(repository, "import { type JobView } from '../domain/jobs';")).toEqual([]);
    expect(lint(repository, "import { createJobsService } from '../domain/jobs';")).toEqual([expect.stringMatching(/record types only/)]);
    expect(lint(repository, "import { toJob } from '../domain/common/views';")).toHaveLength(1);
    expect(lint(repository, "import { x } from '../routes/jobs.routes';")).toHaveLength(1);
  });
});
