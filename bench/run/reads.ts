import { load, LoadResult } from '../http-load';
import { READS, READ_CONNECTIONS } from './options';
import type { RoundContext } from './round-context';

/** What is read, and its route: a service, a job (the `read-me` service's init job) and a model. */
export type Read = [what: string, route: string];

export const readRoutes = (readMeJobId: string): Read[] => [
  ['service', `/v2/clients/bench/domains/d/service/read-me`],
  ['job', `/v2/jobs/${readMeJobId}`],
  ['model', `/v2/models/bench-model`],
];

/** Reads: the service's routes and the bare handler's, same token, same rows, 32 connections. */
export async function readRound({ base, baselines, must, figures }: RoundContext, side: 'service' | 'bare', [what, route]: Read) {
  const url = `${side === 'service' ? base : baselines!.http.url}${route}`;
  const r: LoadResult = await load(READS, READ_CONNECTIONS, async () => {
    await must('GET', url);
  });
  figures.note(`${side}.read.${what}`, r.perSecond);
}
