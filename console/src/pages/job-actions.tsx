import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { useCan, useSession } from '../session-context';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorMessage } from '../components/query-view';
import { isFinal } from '../vocab';

/** Cancel (a pending or running job) and re-run (a final one), each after a confirmation. */
export function JobActions({ job }: { job: Schemas['ModelJob'] }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const may = useCan('run_inference');
  const mayTrain = useCan('train_model');
  const path = { job_id: job.job_id };
  const cancel = useMutation({
    mutationFn: () => ok(api.POST('/v2/jobs/{job_id}/cancel', { params: { path }, body: { reason: 'cancelled in the console' } })),
    onSuccess: (cancelled) => queryClient.setQueryData(['job', job.job_id], cancelled),
  });
  const rerun = useMutation({
    mutationFn: () => ok(api.POST('/v2/jobs/{job_id}/rerun', { params: { path } })),
    onSuccess: (started) => navigate(`/jobs/${started.job_id}`),
  });
  if (!may || (job.job_type === 'training' && !mayTrain)) return null;
  return (
    <div className="actions">
      {isFinal(job.status) ? (
        <ConfirmButton
          label="Re-run"
          question={`Start a new job with this job's input (${job.model_id} v${job.model_version})?`}
          onConfirm={() => {
            cancel.reset();
            rerun.mutate();
          }}
        />
      ) : (
        <ConfirmButton
          label="Cancel job"
          question="Cancel this job? Its handler's result will be refused."
          onConfirm={() => {
            rerun.reset();
            cancel.mutate();
          }}
        />
      )}
      {job.rerun_of && (
        <p>
          Re-run of <Link href={`/jobs/${job.rerun_of}`}>{job.rerun_of}</Link>
        </p>
      )}
      {/* Only the last action's error: each action resets the other's. */}
      <ErrorMessage error={cancel.error ?? rerun.error} />
    </div>
  );
}
