export { DEFAULT_ASSIGNMENT_KEY } from './assignment-keys';
export { type AssignmentsService, activeDefault, createAssignmentsService } from './assignments.service';
export { canaryRouteFor } from './canary-selection';
export { enforceGuardrail } from './guardrail';
export { type RolloutsService, createRolloutsService } from './rollouts.service';
export { planShadows, revisesJob } from './shadows';
export type { AssignmentRow, Scope } from './assignment.view';
