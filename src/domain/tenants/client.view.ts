import type { LimitsOverride } from '../../shapes';

/** A tenant (a machine client) as the ports and the repositories (src/db/clients.repository.ts) hand it to the rules. */
export interface ClientRow {
  client_id: string;
  client_uuid: string;
  name: string;
  status: 'active' | 'suspended';
  /** The override of the configured limits a platform administrator set; null: the defaults. */
  limits: LimitsOverride | null;
  created_at: Date;
  updated_at: Date;
}
