import { RE2JS } from 're2js';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';

/** A user's pattern that the linear-time engine cannot run (a backreference, a lookaround), or that is not a pattern. */
export class UnrunnablePattern extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'UnrunnablePattern';
  }
}

// A named backreference: RE2 has none, and its translation of ECMAScript syntax would read `\k<x>` as the text "k<x>".
const NAMED_BACKREFERENCE = /(?:^|[^\\])(?:\\\\)*\\k</;

/**
 * ajv's `code.regExp` for users' schemas: the pattern as ECMAScript writes it, run by RE2JS (a port of RE2), whose
 * time is linear in the input whatever the pattern, so one tenant's `^(a+)+$` cannot hold the process every tenant
 * shares. A pattern RE2 cannot run throws UnrunnablePattern when the schema is compiled, that is, when it is stored.
 */
function compileLinear(pattern: string, flags: string): RegExpLike {
  try {
    // The syntax check ajv's own engine would make; it compiles the pattern without running it.
    new RegExp(pattern, flags);
  } catch (err) {
    throw new UnrunnablePattern(pattern, `is not an ECMAScript regular expression: ${(err as Error).message}`);
  }
  if (NAMED_BACKREFERENCE.test(pattern)) throw new UnrunnablePattern(pattern, 'uses a backreference, which RE2 cannot run');
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    throw new UnrunnablePattern(pattern, `cannot run on RE2 (no backreferences or lookarounds): ${(err as Error).message}`);
  }
  // ajv keys compiled patterns by their text: toString must tell patterns apart.
  const compiled = { test: (text: string) => re.test(text), toString: () => `/${pattern}/${flags}` };
  return compiled;
}

// `code` names the engine in standalone code, which the service never generates.
export const linearRegExp: RegExpEngine = Object.assign(compileLinear, { code: 're2js' });
