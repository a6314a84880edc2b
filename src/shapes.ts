/**
 * Shapes of the JSON values the service stores and passes between layers: feature definitions and values, and
 * handlers. A leaf module, so repositories, application services, activities and routes share one definition.
 */

export interface FeatureDefinition {
  name: string;
  json_schema: Record<string, unknown>;
  mandatory: boolean;
}

export type FeatureValues = Record<string, unknown>;

/** Where a job runs: a Lambda function, an ECS task, or an implementation registered in the worker. */
export type Handler =
  | { type: 'lambda'; arn: string; version?: string }
  | {
      type: 'container_task';
      target: string;
      launch?: {
        launch_type?: string;
        subnets?: string[];
        security_groups?: string[];
        assign_public_ip?: boolean;
        container_name?: string;
      };
    }
  | { type: 'in_process'; name: string };

export interface Handlers {
  training: Handler;
  inference: Handler;
}
