/** An assignment revision and its scope, as the ports and the repositories (src/db/assignments.repository.ts) hand them to the rules. */

export interface AssignmentRow {
  assignment_id: string;
  domain_uuid: string;
  service_uuid: string | null;
  assignment_key: string;
  model_id: string;
  model_version: string;
  status: 'active' | 'archived';
  role: string | null;
  /** The alias of its model this assignment follows: a move of the alias re-points it. */
  follows_alias: string | null;
  settings: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  /** When this revision came into force; null for a revision written `archived` (it retired its key). */
  activated_at: Date | null;
  /** When a later upsert (or an `archived` revision) took it out of force; null while active. */
  archived_at: Date | null;
  created_by: string | null;
  archived_by: string | null;
  /** Why it left force other than by an upsert: promoted, rolled back (by whom, why), or the guardrail's reason. */
  status_reason: string | null;
}

export interface Scope {
  domainUuid: string;
  domainId: string;
  serviceUuid?: string;
  serviceId?: string;
}
