import { httpCaller } from '../http-load';
import { createFigures } from './figures';
import { READ_CONNECTIONS } from './options';
import type { Baselines, Service, Stack } from './stack';

/** What every phase of a round uses: the stack, the service's URL and token, the HTTP caller, the figures. */
export function roundContext({ knex, temporal, stamp }: Stack, { base, token, departure, workers }: Service, baselines: Baselines) {
  const call = httpCaller(READ_CONNECTIONS);
  const must = async (method: string, url: string, body?: unknown, expect = 200) => {
    const res = await call(method, url, token, body);
    if (res.status !== expect) throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
    return res.body;
  };
  /** How many of `ids` are final (success or failure), from their rows. */
  const doneCount = async (ids: string[]) => {
    const { n } = (await knex('model_jobs').whereIn('job_id', ids).whereIn('status', ['success', 'failure']).count({ n: '*' }).first()) as {
      n: number;
    };
    return n;
  };
  return { knex, temporal, stamp, base, token, departure, workers, baselines, call, must, doneCount, figures: createFigures() };
}
export type RoundContext = ReturnType<typeof roundContext>;
