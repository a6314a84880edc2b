import { runWorkedExample, startDocRunner } from '../../helpers/doc-runner';

/** docs/registry.md's worked example, run as written against a fresh dev runner (as the progressive delivery one is). */
describe('the worked example of docs/registry.md', () => {
  let doc: Awaited<ReturnType<typeof startDocRunner>>;
  beforeAll(async () => {
    doc = await startDocRunner('registry-example');
  });
  afterAll(() => doc?.stop());

  it('trains, attaches artifacts, aliases champion, has a domain follow it, moves it to version 2, and the next job runs 2', async () => {
    const run = await runWorkedExample('docs/registry.md', 'Worked example', doc.runner);
    expect(run.blocks).toBe(5);
    expect(run.printed).toEqual(run.expected);
  });
});
