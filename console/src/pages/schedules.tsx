import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearch } from 'wouter';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { useCan, useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Status, When } from '../components/status';
import { Field } from '../components/field';
import { Table } from '../components/table';
import { PreviewedChange } from '../components/previewed-change';

type Schedule = Schemas['Schedule'];
type Spec = Schemas['CreateServiceScheduleRequest']['spec'];
type Keys = { clientId: string };

const OVERLAPS = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'allow_all'] as const;

/** What the form's text says, as the API's spec: cron expressions one per line, an optional interval. */
function specOf(cron: string, every: string, timeZone: string): Spec {
  const lines = cron
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return {
    ...(lines.length ? { cron: lines } : {}),
    ...(every.trim() ? { intervals: [{ every_seconds: Number(every) }] } : {}),
    time_zone: timeZone || 'UTC',
  };
}

function describeSpec(spec: Schedule['spec']): string {
  const parts = [...spec.cron.map((c) => `cron ${c}`), ...spec.intervals.map((i) => `every ${i.every_seconds} s`)];
  return `${parts.join(', ')} (${spec.time_zone})`;
}

/** The dry run's answer: the next nominal fires and whether a fire now would start a job. */
function FiresPreview({ schedule }: { schedule: Schedule }) {
  const preview = schedule.preview;
  const fires = preview?.next_fire_times ?? schedule.next_fire_times;
  return (
    <div>
      <p>Next fires:</p>
      <ol aria-label="Next fires">
        {fires.map((t) => (
          <li key={t}>
            <When at={t} />
          </li>
        ))}
      </ol>
      {preview && (
        <p>
          A fire now{' '}
          {preview.first_run.would_start ? 'would start a job' : `would start nothing: ${preview.first_run.skipped_reason ?? ''}`}
        </p>
      )}
    </div>
  );
}

function SpecFields({
  cron,
  setCron,
  every,
  setEvery,
  timeZone,
  setTimeZone,
}: {
  cron: string;
  setCron: (v: string) => void;
  every: string;
  setEvery: (v: string) => void;
  timeZone: string;
  setTimeZone: (v: string) => void;
}) {
  return (
    <>
      <Field label="Cron expressions (one per line)" value={cron} onChange={setCron} multiline placeholder="0 6 * * *" />
      <Field label="Or every (seconds)" type="number" value={every} onChange={setEvery} />
      <Field label="Time zone" value={timeZone} onChange={setTimeZone} />
    </>
  );
}

function CreateSchedule({ clientId, domainId }: Keys & { domainId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [domain, setDomain] = useState(domainId);
  const [serviceId, setServiceId] = useState('');
  const [cron, setCron] = useState('0 6 * * *');
  const [every, setEvery] = useState('');
  const [timeZone, setTimeZone] = useState('UTC');
  const [overlap, setOverlap] = useState<(typeof OVERLAPS)[number]>('skip');
  const [description, setDescription] = useState('');
  const run = (dryRun: boolean) =>
    ok(
      api.POST('/v2/clients/{client_id}/schedules', {
        params: { path: { client_id: clientId }, query: { dry_run: dryRun } },
        body: { domain_id: domain, service_id: serviceId, spec: specOf(cron, every, timeZone), policies: { overlap }, description },
      }),
    );
  return (
    <section aria-labelledby="new-schedule">
      <h2 id="new-schedule">New schedule: re-score a service</h2>
      <Field label="Domain id" value={domain} onChange={setDomain} />
      <Field label="Service id" value={serviceId} onChange={setServiceId} />
      <SpecFields cron={cron} setCron={setCron} every={every} setEvery={setEvery} timeZone={timeZone} setTimeZone={setTimeZone} />
      <div className="field">
        <label htmlFor="new-schedule-overlap">When the previous fire still runs</label>
        <select id="new-schedule-overlap" value={overlap} onChange={(e) => setOverlap(e.target.value as (typeof OVERLAPS)[number])}>
          {OVERLAPS.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </div>
      <Field label="Description" value={description} onChange={setDescription} />
      <PreviewedChange
        key={`${domain}/${serviceId}/${cron}/${every}/${timeZone}/${overlap}/${description}`}
        label="create the schedule"
        run={run}
        describe={(s) => <FiresPreview schedule={s} />}
        onDone={() => void queryClient.invalidateQueries({ queryKey: ['schedules', clientId] })}
      />
    </section>
  );
}

/** A new spec for a schedule: its next fires are previewed by a create dry run of the same target, then PUT. */
function EditSpec({ clientId, schedule }: Keys & { schedule: Schedule }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [cron, setCron] = useState(schedule.spec.cron.join('\n'));
  const [every, setEvery] = useState(schedule.spec.intervals[0] ? String(schedule.spec.intervals[0].every_seconds) : '');
  const [timeZone, setTimeZone] = useState(schedule.spec.time_zone);
  const spec = specOf(cron, every, timeZone);
  const run = (dryRun: boolean) =>
    dryRun
      ? ok(
          api.POST('/v2/clients/{client_id}/schedules', {
            params: { path: { client_id: clientId }, query: { dry_run: true } },
            body: { domain_id: schedule.target.domain_id ?? '', service_id: schedule.target.service_id ?? '', spec },
          }),
        )
      : ok(
          api.PUT('/v2/clients/{client_id}/schedules/{schedule_id}', {
            params: { path: { client_id: clientId, schedule_id: schedule.schedule_id } },
            body: { spec },
          }),
        );
  return (
    <div>
      <h4>Change when it fires</h4>
      <SpecFields cron={cron} setCron={setCron} every={every} setEvery={setEvery} timeZone={timeZone} setTimeZone={setTimeZone} />
      <PreviewedChange
        key={`${cron}/${every}/${timeZone}`}
        label="change the schedule"
        run={run}
        describe={(s) => <FiresPreview schedule={s} />}
        onDone={() => void queryClient.invalidateQueries({ queryKey: ['schedules', clientId] })}
      />
    </div>
  );
}

/** Pause or unpause with a note, trigger a fire now, backfill a past range. */
function ScheduleActions({ clientId, schedule }: Keys & { schedule: Schedule }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const hourAgo = new Date(Math.floor((Date.now() - 3600_000) / 60_000) * 60_000).toISOString();
  const [start, setStart] = useState(hourAgo);
  const [end, setEnd] = useState(new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString());
  const path = { client_id: clientId, schedule_id: schedule.schedule_id };
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['schedules', clientId] });
  const pause = useMutation({
    mutationFn: () =>
      schedule.state.paused
        ? ok(api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/unpause', { params: { path }, body: { note } }))
        : ok(api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/pause', { params: { path }, body: { note } })),
    onSuccess: refresh,
  });
  const trigger = useMutation({
    mutationFn: () => ok(api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/trigger', { params: { path }, body: {} })),
    onSuccess: refresh,
  });
  const backfill = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/backfill', { params: { path }, body: { start_at: start, end_at: end } }),
      ),
    onSuccess: refresh,
  });
  const verb = schedule.state.paused ? 'Unpause' : 'Pause';
  return (
    <div className="actions">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          pause.mutate();
        }}
      >
        <Field label={`Note (why ${verb.toLowerCase()})`} value={note} onChange={setNote} />
        <button type="submit" disabled={pause.isPending}>
          {verb} schedule
        </button>
        {pause.isSuccess && <p role="status">Schedule {pause.data.state.paused ? 'paused' : 'running again'}.</p>}
        <ErrorMessage error={pause.error} />
      </form>
      <div>
        <button type="button" onClick={() => trigger.mutate()} disabled={trigger.isPending}>
          Trigger now
        </button>
        {trigger.isSuccess && <p role="status">One fire handed to Temporal; its run appears below.</p>}
        <ErrorMessage error={trigger.error} />
      </div>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          backfill.mutate();
        }}
      >
        <Field label="Backfill from (ISO 8601, inclusive)" value={start} onChange={setStart} />
        <Field label="Backfill to (ISO 8601, exclusive, not in the future)" value={end} onChange={setEnd} />
        <button type="submit" disabled={backfill.isPending}>
          Backfill
        </button>
        {backfill.isSuccess && (
          <p role="status">
            Backfill of {backfill.data.nominal_times?.length ?? 0} fires:{' '}
            {(backfill.data.nominal_times ?? []).join(', ') || 'none in the range'}.
          </p>
        )}
        <ErrorMessage error={backfill.error} />
      </form>
    </div>
  );
}

function ScheduleDetail({ clientId, schedule }: Keys & { schedule: Schedule }) {
  const canRun = useCan('run_inference');
  const skipped = schedule.recent_runs.filter((r) => r.outcome === 'skipped');
  return (
    <article aria-labelledby={`schedule-${schedule.schedule_id}`} className="schedule">
      <h3 id={`schedule-${schedule.schedule_id}`}>Schedule {schedule.description || schedule.schedule_id}</h3>
      <p>
        Re-scores {schedule.target.service_id} in {schedule.target.domain_id} · {describeSpec(schedule.spec)} · overlap{' '}
        {schedule.policies.overlap} · <Status value={schedule.state.paused ? 'paused' : 'active'} />
        {schedule.state.note && ` (${schedule.state.note})`} ·{' '}
        <Link href={`/jobs?schedule_id=${schedule.schedule_id}`}>Jobs of this schedule</Link>
        {schedule.temporal_url && (
          <>
            {' · '}
            <a href={schedule.temporal_url} target="_blank" rel="noreferrer">
              In the Temporal UI
            </a>
          </>
        )}
      </p>
      <Table
        rows={schedule.recent_runs}
        rowKey={(r) => r.nominal_time}
        empty="No runs yet."
        caption={`Recent runs of ${schedule.description || schedule.schedule_id}`}
        columns={[
          { header: 'Nominal time', cell: (r) => <When at={r.nominal_time} /> },
          { header: 'Outcome', cell: (r) => <Status value={r.outcome} /> },
          { header: 'Job', cell: (r) => (r.job_id ? <Link href={`/jobs/${r.job_id}`}>{r.job_status ?? r.job_id}</Link> : '—') },
          { header: 'Reason', cell: (r) => r.reason ?? '—' },
        ]}
      />
      {skipped.length > 0 && <p>{skipped.length} of the recent runs were skipped; the reason of each is in the table.</p>}
      {canRun && (
        <>
          <ScheduleActions clientId={clientId} schedule={schedule} />
          <EditSpec clientId={clientId} schedule={schedule} />
        </>
      )}
    </article>
  );
}

/** A tenant's schedules (re-scoring its services), or those of one domain: `?domain_id=`. */
export function Schedules({ params }: { params: { clientId: string } }) {
  const { api } = useSession();
  const { clientId } = params;
  const domainId = new URLSearchParams(useSearch()).get('domain_id') ?? '';
  const canRun = useCan('run_inference');
  const [open, setOpen] = useState<string | null>(null);
  const schedules = useQuery({
    queryKey: ['schedules', clientId, domainId],
    queryFn: () =>
      ok(
        api.GET('/v2/clients/{client_id}/schedules', {
          params: { path: { client_id: clientId }, query: { limit: 100, ...(domainId ? { domain_id: domainId } : {}) } },
        }),
      ),
  });
  const crumbs = (
    <p>
      <Link href="/tenants">Tenants</Link> / <Link href={`/tenants/${clientId}`}>{clientId}</Link> /
      {domainId && (
        <>
          {' '}
          <Link href={`/tenants/${clientId}/domains/${domainId}`}>{domainId}</Link> /
        </>
      )}
    </p>
  );
  return (
    <>
      {crumbs}
      <h1>Schedules of {domainId ? `domain ${domainId}` : `tenant ${clientId}`}</h1>
      <QueryView query={schedules}>
        {({ items }) => {
          const selected = items.find((s) => s.schedule_id === open);
          return (
            <>
              <Table
                rows={items}
                rowKey={(s) => s.schedule_id}
                empty="No schedules yet."
                columns={[
                  {
                    header: 'Schedule',
                    cell: (s) => (
                      <button type="button" className="link" aria-pressed={s.schedule_id === open} onClick={() => setOpen(s.schedule_id)}>
                        {s.description || s.schedule_id}
                      </button>
                    ),
                  },
                  { header: 'Service', cell: (s) => `${s.target.domain_id} / ${s.target.service_id}` },
                  { header: 'When', cell: (s) => describeSpec(s.spec) },
                  { header: 'State', cell: (s) => <Status value={s.state.paused ? 'paused' : 'active'} /> },
                  { header: 'Next fire', cell: (s) => (s.state.paused ? 'paused' : <When at={s.next_fire_times[0]} />) },
                  {
                    header: 'Last outcome',
                    cell: (s) => {
                      const last = s.recent_runs[0];
                      if (!last) return 'none yet';
                      return last.outcome === 'skipped' ? `skipped: ${last.reason ?? ''}` : `started · ${last.job_status ?? ''}`;
                    },
                  },
                ]}
              />
              {selected && <ScheduleDetail clientId={clientId} schedule={selected} />}
            </>
          );
        }}
      </QueryView>
      {canRun && <CreateSchedule clientId={clientId} domainId={domainId} />}
    </>
  );
}
