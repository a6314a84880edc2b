import type { Knex } from 'knex';
import * as repo from '../../db/models.repository';
import type { UserSchemaCompiler } from '../common';
import { ConflictError, InvalidInputError, UnprocessableError } from '../../errors';
import { artifactsProblem } from './artifacts';
import { hasHandlerSecret, writeHandlerSecret } from '../../db/handler-secrets.repository';
import type { SecretBox } from '../../secrets/secret-box';
import { checkTarget, TargetRefused, type TargetPolicy } from '../../webhooks/target-policy';
import { newSecret } from '../../webhooks/signature';
import type { Db } from '../../db/types';

type Handlers = repo.ModelRow['handlers'];

/** Refuses artifacts that do not parse (400 naming the field); the request schema cannot say all of it (URIs, unique names). */
export function checkArtifacts(artifacts: unknown, field: string): void {
  if (artifacts === undefined) return;
  const problem = artifactsProblem(artifacts, field);
  if (problem) throw new InvalidInputError(problem);
}

/** Refuses an in-process handler no worker implements and an `http` handler whose url the target policy refuses (422). */
export async function checkHandlers(
  deps: { inProcessNames: () => string[]; policy: TargetPolicy },
  handlers: Handlers | undefined,
): Promise<void> {
  if (!handlers) return;
  const known = deps.inProcessNames();
  for (const kind of ['training', 'inference'] as const) {
    const h = handlers[kind];
    if (h.type === 'in_process' && !known.includes(h.name)) {
      throw new UnprocessableError(
        `handlers.${kind}.name: no in-process implementation named "${h.name}"; known: ${known.join(', ') || 'none'}`,
      );
    }
    if (h.type === 'http') {
      try {
        await checkTarget(h.url, deps.policy);
      } catch (err) {
        if (err instanceof TargetRefused) throw new UnprocessableError(`handlers.${kind}.url refused: ${err.message}`);
        throw err;
      }
    }
  }
}

/**
 * The model's first `http` handler gets it a signing secret, answered once (in this response) and never again.
 * Later changes keep the secret the model servers already verify with.
 */
export async function ensureHandlerSecret(
  secrets: Pick<SecretBox, 'seal'>,
  db: Db,
  modelId: string,
  handlers: Handlers | undefined,
): Promise<{ http_handler_secret?: string }> {
  if (!handlers || (handlers.training.type !== 'http' && handlers.inference.type !== 'http')) return {};
  if (await hasHandlerSecret(db, modelId)) return {};
  const secret = newSecret();
  await writeHandlerSecret(db, secrets, modelId, secret);
  return { http_handler_secret: secret };
}

/** Refuses a handler contract schema that is not a usable JSON Schema: 400 when it cannot run, else 422. */
export function checkContracts(schemas: UserSchemaCompiler, contracts: repo.HandlerContracts | null | undefined): void {
  for (const kind of ['training', 'inference'] as const) {
    for (const field of ['input_schema', 'output_schema'] as const) {
      const schema = contracts?.[kind]?.[field];
      if (schema === undefined) continue;
      const problem = schemas.check(schema);
      if (!problem) continue;
      const message = `handler_contracts.${kind}.${field} ${problem.message}`;
      throw problem.unrunnable ? new InvalidInputError(message) : new UnprocessableError(message);
    }
  }
}

/** A deleted id or version string is never registered again: the jobs that ran it still name it. */
export async function refuseDeleted(knex: Knex, modelId: string, version?: string): Promise<void> {
  const at = await repo.findDeletion(knex, modelId, version);
  if (at) {
    const what = version === undefined ? `model ${modelId}` : `version ${modelId}@${version}`;
    throw new ConflictError(`${what} was deleted at ${at.toISOString()}; its jobs still name it, so pick another`);
  }
}
