import type { Db } from './types';
import type { SecretBox } from '../secrets/secret-box';

// The one door to `models.http_handler_secret_sealed`: the secret is sealed on the way in and opened only to sign.

/** Whether the model has a secret for its `http` handlers yet (nothing is opened). */
export async function hasHandlerSecret(db: Db, modelId: string): Promise<boolean> {
  const row = await db('models')
    .where({ id: modelId })
    .first<{ sealed: string | null } | undefined>('http_handler_secret_sealed as sealed');
  return Boolean(row?.sealed);
}

/** The secret a model's `http` handlers verify the service's calls with, opened; null when the model has none yet. */
export async function readHandlerSecret(db: Db, box: Pick<SecretBox, 'open'>, modelId: string): Promise<string | null> {
  const row = await db('models')
    .where({ id: modelId })
    .first<{ sealed: string | null } | undefined>('http_handler_secret_sealed as sealed');
  return row?.sealed ? box.open(row.sealed) : null;
}

export async function writeHandlerSecret(db: Db, box: Pick<SecretBox, 'seal'>, modelId: string, secret: string): Promise<void> {
  await db('models')
    .where({ id: modelId })
    .update({ http_handler_secret_sealed: box.seal(secret) });
}
