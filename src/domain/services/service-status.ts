import type { ServiceStatus } from '../../db/services.repository';

/**
 * Transitions the set-status route allows. `in_progress` is entered only by init or an update that
 * re-runs inference; the job's outcome moves it to `available` or `failed`. `not_found` is final until re-init.
 */
export const SERVICE_TRANSITIONS: Record<ServiceStatus, readonly ServiceStatus[]> = {
  in_progress: ['available', 'failed', 'not_found'],
  available: ['failed', 'not_found'],
  failed: ['available', 'not_found'],
  not_found: [],
};

export function canMoveService(from: ServiceStatus, to: ServiceStatus): boolean {
  return from === to || SERVICE_TRANSITIONS[from].includes(to);
}
