import { performance } from 'node:perf_hooks';
import { UserSchemaCompiler } from '../../src/domain/common';
import { FeatureRules } from '../../src/domain/common';
import { fmt } from './figures';
import { FEATURES } from './fixtures';

/** The feature rules: compiled validators cached by content vs compiling per request. */
export function printFeatureValidation() {
  const values = { seats: 120, cabin: 'first', legs: ['FRA', 'JFK'], load: 0.8 };
  const cached = new FeatureRules(new UserSchemaCompiler());
  let t = performance.now();
  for (let i = 0; i < 20000; i++) cached.valueProblems(FEATURES, values);
  const cachedUs = ((performance.now() - t) / 20000) * 1000;
  t = performance.now();
  for (let i = 0; i < 300; i++) new FeatureRules(new UserSchemaCompiler()).valueProblems(FEATURES, values);
  const uncachedUs = ((performance.now() - t) / 300) * 1000;
  console.log(
    `feature validation: cached ${fmt(cachedUs)} µs/check, compiled per check ${fmt(uncachedUs)} µs/check (${fmt(uncachedUs / cachedUs)}x)`,
  );
}
