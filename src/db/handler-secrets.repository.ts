import type { Db } from './types';

// The one door to `models.http_handler_secret`: what encrypts stored secrets wraps these two functions.

/** The secret a model's `http` handlers verify the service's calls with; null when the model has none yet. */
export async function readHandlerSecret(db: Db, modelId: string): Promise<string | null> {
  const row = await db('models').where({ id: modelId }).first<{ http_handler_secret: string | null } | undefined>('http_handler_secret');
  return row?.http_handler_secret ?? null;
}

export async function writeHandlerSecret(db: Db, modelId: string, secret: string): Promise<void> {
  await db('models').where({ id: modelId }).update({ http_handler_secret: secret });
}
