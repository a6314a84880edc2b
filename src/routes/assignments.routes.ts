import type { Register } from './types';
import { page, answerStarted, jobContext, changeContext } from '../http/routing';
import type { AssignmentsService } from '../domain/assignments';
import type { createJobStarts } from '../domain/jobs';

export function registerAssignmentRoutes(route: Register, assignments: AssignmentsService, starts: ReturnType<typeof createJobStarts>) {
  route('upsertDomainAssignment', async (r) =>
    assignments.upsertDomain(r.params.client_id, r.params.domain_id, r.params.assignment_key, r.body, changeContext(r)),
  );

  route('createDomainAssignment', async (r) => {
    const { assignment_key, ...body } = r.body;
    return assignments.upsertDomain(r.params.client_id, r.params.domain_id, assignment_key, body, changeContext(r));
  });

  route('listDomainAssignments', async (r) =>
    assignments.list(r.params.client_id, r.params.domain_id, page(r), r.query.status ?? 'active'),
  );

  route('getDomainAssignment', async ({ params: p }) => assignments.getActive(p.client_id, p.domain_id, p.assignment_key));

  route('runDomainAssignment', async (r) =>
    answerStarted(
      r,
      await starts.runDomainAssignment(
        r.params.client_id,
        r.params.domain_id,
        r.params.assignment_key,
        r.body,
        jobContext(r, 'runDomainAssignment'),
      ),
    ),
  );

  route('upsertServiceAssignment', async (r) =>
    assignments.upsertService(
      r.params.client_id,
      r.params.domain_id,
      r.params.service_id,
      r.params.assignment_key,
      r.body,
      changeContext(r),
    ),
  );

  route('createServiceAssignment', async (r) => {
    const { assignment_key, ...body } = r.body;
    return assignments.upsertService(r.params.client_id, r.params.domain_id, r.params.service_id, assignment_key, body, changeContext(r));
  });

  route('listServiceAssignments', async (r) =>
    assignments.list(r.params.client_id, r.params.domain_id, page(r), r.query.status ?? 'active', r.params.service_id),
  );

  route('getServiceAssignment', async ({ params: p }) => assignments.getActive(p.client_id, p.domain_id, p.assignment_key, p.service_id));

  route('getEffectiveAssignments', async (r) =>
    assignments.effective(r.params.client_id, r.params.domain_id, r.params.service_id, page(r), r.query.at),
  );

  route('runServiceAssignment', async (r) =>
    answerStarted(
      r,
      await starts.runServiceAssignment(
        r.params.client_id,
        r.params.domain_id,
        r.params.service_id,
        r.params.assignment_key,
        r.body,
        jobContext(r, 'runServiceAssignment'),
      ),
    ),
  );
}
