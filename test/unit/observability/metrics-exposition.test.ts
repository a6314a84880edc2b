import { spawnSync } from 'node:child_process';
import { ServiceMetrics } from '../../../src/observability/metrics';
import { parseSamples, valueOf } from '../../helpers/prometheus';

/** A registry as a process has it, every kind of series used once. */
async function exposition(): Promise<string> {
  const m = new ServiceMetrics({ pool: () => ({ used: 1, idle: 2, waiting: 0, max: 5 }) });
  m.httpDuration.observe({ route: '/v2/models', method: 'GET', status: '200' }, 0.01);
  m.temporalCalls.observe({ operation: 'start', outcome: 'ok' }, 0.01);
  m.scheduleToStart.observe({ trigger: 'direct', tenant: 'default' }, 0.1);
  m.requestThrottled('jobs', 'default');
  m.jobQueued('direct', 'default');
  m.jobReleased('direct', 'default');
  return m.scrape();
}

/** What `promtool check metrics` says of `text`: its own verdict where it is installed (Debian: `prometheus`), else its naming rule. */
function promtoolProblems(text: string): string[] {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (!run.error) return `${run.stdout}${run.stderr}`.split('\n').filter(Boolean);
  // Without promtool: the rule prom-client's defaults broke; counters end in _total, nothing else does.
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)]
    .filter(([, name, type]) => (type === 'counter') !== name.endsWith('_total'))
    .map(([, name, type]) => `${name} (${type}): only counters end in _total`);
}

describe('the metrics exposition', () => {
  it('passes promtool check metrics', async () => {
    expect(promtoolProblems(await exposition())).toEqual([]);
  });

  it('has every job series at 0 before the first job', async () => {
    const samples = parseSamples(await new ServiceMetrics({ defaultMetrics: false }).scrape());
    const zero = (name: string, labels: Record<string, string>) => [name, labels, valueOf(samples, name, labels)];
    expect([
      zero('mos_jobs_started_total', { job_type: 'inference', trigger: 'service_init' }),
      zero('mos_jobs_started_total', { job_type: 'training', trigger: 'schedule' }),
      zero('mos_jobs_finished_total', { job_type: 'inference', status: 'timed_out' }),
      zero('mos_job_duration_seconds_count', { job_type: 'training', status: 'success' }),
      zero('mos_job_completion_reports_total', { outcome: '207' }),
      zero('mos_cascade_entries_total', { outcome: 'failed' }),
      zero('mos_dispatch_attempts_total', { handler: 'container_task' }),
      zero('mos_dispatch_failures_total', { handler: 'lambda', retryable: 'true' }),
    ]).toEqual([
      ['mos_jobs_started_total', { job_type: 'inference', trigger: 'service_init' }, 0],
      ['mos_jobs_started_total', { job_type: 'training', trigger: 'schedule' }, 0],
      ['mos_jobs_finished_total', { job_type: 'inference', status: 'timed_out' }, 0],
      ['mos_job_duration_seconds_count', { job_type: 'training', status: 'success' }, 0],
      ['mos_job_completion_reports_total', { outcome: '207' }, 0],
      ['mos_cascade_entries_total', { outcome: 'failed' }, 0],
      ['mos_dispatch_attempts_total', { handler: 'container_task' }, 0],
      ['mos_dispatch_failures_total', { handler: 'lambda', retryable: 'true' }, 0],
    ]);
  });
});
