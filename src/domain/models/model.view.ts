import type { Schemas } from '../../openapi/types';
import type { FeatureDefinition, Handlers } from '../../shapes';

/** The registry's records as the ports and the repositories (src/db/models.repository.ts) hand them to the rules. */

type Artifact = Schemas['ModelArtifact'];

export type HandlerContract = Schemas['HandlerContract'];
export type HandlerContracts = Schemas['HandlerContracts'];

export type VersionStatus = 'pending' | 'training' | 'active' | 'failed' | 'deprecated' | 'archived';

export interface ModelRow {
  id: string;
  name: string;
  description: string;
  metadata: Record<string, unknown>;
  handlers: Handlers;
  handler_contracts: HandlerContracts | null;
  /** Key → value labels (`team`, `dataset`), set one at a time through the tag routes. */
  tags: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  /** Derived: active once any version is active. */
  status: 'pending' | 'active';
}

export interface VersionRow {
  model_id: string;
  version: string;
  description: string;
  metadata: Record<string, unknown>;
  status: VersionStatus;
  features: FeatureDefinition[];
  artifacts: Artifact[];
  /** Where the version came from, free text. */
  source: string | null;
  /** The training job whose success made the version active (lineage). */
  source_job_id: string | null;
  tags: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
  /** Who last moved the status through the status route, and when (training outcomes record no one). */
  status_changed_by: string | null;
  status_changed_at: Date | null;
}
