import type { FeatureValues } from '../../shapes';

/** A service as the ports and the repositories (src/db/services.repository.ts) hand it to the rules. */

export type ServiceStatus = 'in_progress' | 'available' | 'failed' | 'not_found';

export interface ServiceRow {
  service_uuid: string;
  domain_uuid: string;
  service_id: string;
  status: ServiceStatus;
  departure_datetime: Date;
  provided_features: FeatureValues;
  resolved_features: FeatureValues;
  created_at: Date;
  updated_at: Date;
}
