// The project's own lint rules (eslint.config.mjs loads them as plugin `architecture`; test/unit/eslint-rules/lint-rules.test.ts
// runs each against code that breaks it). CommonJS so that jest can load them without ESM support.
const fs = require('node:fs');
const path = require('node:path');

const DOMAIN = `${path.sep}src${path.sep}domain${path.sep}`;
/** `…/src/domain/<concept>/…` → { concept, dir }, for an absolute path; undefined outside a concept of the domain. */
function conceptOf(file) {
  const at = file.lastIndexOf(DOMAIN);
  if (at < 0) return undefined;
  const parts = file.slice(at + DOMAIN.length).split(path.sep);
  return parts.length > 1 ? { concept: parts[0], dir: file.slice(0, at + DOMAIN.length) + parts[0] } : undefined;
}

/** The file a relative specifier names: `x.ts`, or `x/index.ts`; undefined for anything else (a package, JSON). */
function resolveModule(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [base + '.ts', path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

const conceptFaces = {
  meta: {
    type: 'problem',
    docs: { description: "other code reaches a domain concept only through its folder's index.ts" },
    schema: [],
    messages: {
      face: "Import {{concept}} through its public face, src/domain/{{concept}}/index.ts ('{{face}}'), not its file {{file}}.",
    },
  },
  create(context) {
    const own = conceptOf(context.filename);
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string' || !node.source.value.startsWith('.')) return;
      const target = resolveModule(context.filename, node.source.value);
      const into = target && conceptOf(target);
      if (!into || into.concept === own?.concept || target === path.join(into.dir, 'index.ts')) return;
      let face = path.relative(path.dirname(context.filename), into.dir);
      if (!face.startsWith('.')) face = './' + face;
      const file = path.relative(context.cwd, target);
      context.report({ node: node.source, messageId: 'face', data: { concept: into.concept, face, file } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

/** Value imports of a file (type-only ones are erased and cannot make a load-order cycle), cached per lint run. */
const edgesCache = new Map();
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'|(?:^|\n)\s*import\s+'(\.[^']+)'/g;
function valueImports(file) {
  if (edgesCache.has(file)) return edgesCache.get(file);
  const edges = [];
  let source = '';
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch {
    // a file that is gone has no edges
  }
  for (const m of source.matchAll(IMPORT)) {
    const [, typeOnly, clause, specifier, bare] = m;
    if (typeOnly) continue;
    if (clause && /^\{[^}]*\}$/s.test(clause.trim())) {
      const names = clause
        .trim()
        .slice(1, -1)
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      if (names.length > 0 && names.every((n) => n.startsWith('type '))) continue;
    }
    const target = resolveModule(file, specifier ?? bare);
    if (target) edges.push(target);
  }
  edgesCache.set(file, edges);
  return edges;
}

const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no module imports (through values) a module that imports it back' },
    schema: [],
    messages: { cycle: 'Import cycle: {{path}}. Move what both need into a module below them.' },
  },
  create(context) {
    const self = path.resolve(context.filename);
    const root = context.cwd;
    return {
      ImportDeclaration(node) {
        if (node.importKind === 'type' || typeof node.source.value !== 'string' || !node.source.value.startsWith('.')) return;
        if (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type')) return;
        const start = resolveModule(self, node.source.value);
        if (!start) return;
        // Depth-first from the imported module; a path back to this file is a cycle.
        const seen = new Set();
        const walk = (file, trail) => {
          if (file === self) return trail;
          if (seen.has(file)) return undefined;
          seen.add(file);
          for (const next of valueImports(file)) {
            const found = walk(next, [...trail, next]);
            if (found) return found;
          }
          return undefined;
        };
        const cycle = walk(start, [start]);
        if (cycle) {
          const names = [self, ...cycle].map((f) => path.relative(root, f));
          context.report({ node: node.source, messageId: 'cycle', data: { path: names.join(' → ') } });
        }
      },
    };
  },
};

/**
 * A test that sleeps and then asserts passes whenever the effect is merely slower than the sleep: "nothing happened"
 * after a sleep proves nothing. Tests wait for the event that would have caused the effect (a workflow's record, an
 * outbox row, a later marker), then assert. A sleep whose elapsed time is itself the rule under test (a refetch
 * interval, a staleness limit) says so with a `// clock:` comment on its line.
 */
const SLEEP_CALLS = new Set(['sleep', 'pause', 'delay']);
const EVENT_WAITS = new Set(['eventually', 'waitFor']);
const WINDOW = 5;
function isSleep(expression) {
  if (!expression || expression.type !== 'AwaitExpression') return false;
  const arg = expression.argument;
  if (arg.type === 'CallExpression' && arg.callee.type === 'Identifier') return SLEEP_CALLS.has(arg.callee.name);
  if (arg.type !== 'NewExpression' || arg.callee.type !== 'Identifier' || arg.callee.name !== 'Promise') return false;
  const executor = arg.arguments[0];
  const body =
    executor && (executor.type === 'ArrowFunctionExpression' || executor.type === 'FunctionExpression') ? executor.body : undefined;
  return !!body && body.type === 'CallExpression' && body.callee.type === 'Identifier' && body.callee.name === 'setTimeout';
}
/** Whether a statement calls one of `names`, anywhere inside it. */
function calls(node, names) {
  let found = false;
  const visit = (n) => {
    if (found || !n || typeof n.type !== 'string') return;
    if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && names.has(n.callee.name)) found = true;
    for (const key of Object.keys(n)) {
      if (key === 'parent') continue;
      const value = n[key];
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value.type === 'string') visit(value);
    }
  };
  visit(node);
  return found;
}
const noSleepThenAssert = {
  meta: {
    type: 'problem',
    docs: { description: 'a test waits for an event, not for time, before asserting' },
    schema: [],
    messages: {
      sleep:
        'A sleep followed by an assertion passes whenever the effect is merely slower: wait for the event instead (eventually(), waitFor()), or mark the sleep `// clock:` if elapsed time is the rule under test.',
    },
  },
  create(context) {
    const source = context.sourceCode;
    const expectCall = new Set(['expect']);
    return {
      ExpressionStatement(node) {
        if (!isSleep(node.expression)) return;
        const line = source.lines[node.loc.start.line - 1];
        if (line.includes('// clock:')) return;
        const siblings = node.parent && Array.isArray(node.parent.body) ? node.parent.body : [];
        const after = siblings.slice(siblings.indexOf(node) + 1, siblings.indexOf(node) + 1 + WINDOW);
        for (const statement of after) {
          if (calls(statement, EVENT_WAITS)) return;
          if (calls(statement, expectCall)) return context.report({ node, messageId: 'sleep' });
        }
      },
    };
  },
};

module.exports = {
  meta: { name: 'architecture' },
  rules: { 'concept-faces': conceptFaces, 'no-import-cycle': noImportCycle, 'no-sleep-then-assert': noSleepThenAssert },
};
