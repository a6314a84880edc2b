import { existsSync, readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import { commaSeparated, ConfigError } from '../env-values';
import type { JobTokenKey, MachineClientConfig } from './config.types';

/** The settings that hold a list or a document in one variable, each checked and read into its parts. */

const MACHINE_CLIENTS_SCHEMA = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: {
      access: { enum: ['platform', 'tenant'] },
      tenants: { type: 'array', items: { type: 'string' } },
    },
    required: ['access'],
  },
} as const;

/** The message for the first fault ajv found in MACHINE_CLIENTS: the entry and its field, as the README names them. */
function machineClientsProblem(path: string[]): string {
  const [id, field] = path;
  if (id === undefined) return 'MACHINE_CLIENTS must be a JSON object';
  if (field === 'tenants') return `MACHINE_CLIENTS["${id}"].tenants must be an array of strings`;
  return `MACHINE_CLIENTS["${id}"].access must be "platform" or "tenant"`;
}

/** MACHINE_CLIENTS holds JSON, or the path of a JSON file: { "<client_id>": { "access": "platform"|"tenant", "tenants": [...] } }. */
export function parseMachineClients(raw: string | undefined): Record<string, MachineClientConfig> {
  if (!raw || raw.trim() === '') return {};
  let text = raw.trim();
  if (!text.startsWith('{')) {
    if (!existsSync(text)) throw new ConfigError(`MACHINE_CLIENTS is neither JSON nor the path of a file: "${raw}"`);
    text = readFileSync(text, 'utf8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`MACHINE_CLIENTS is not valid JSON: ${(err as Error).message}`);
  }
  const valid = new Ajv2020({ strict: true }).compile<Record<string, { access: MachineClientConfig['access']; tenants?: string[] }>>(
    MACHINE_CLIENTS_SCHEMA,
  );
  if (!valid(parsed)) {
    const [error] = valid.errors ?? [];
    const missing = error?.keyword === 'required' ? ['access'] : [];
    const path = [...(error?.instancePath ?? '').split('/').slice(1), ...missing].map((part) =>
      part.replace(/~1/g, '/').replace(/~0/g, '~'),
    );
    throw new ConfigError(machineClientsProblem(path));
  }
  return Object.fromEntries(Object.entries(parsed).map(([id, entry]) => [id, { access: entry.access, tenants: entry.tenants ?? [] }]));
}

/** CORS_ALLOWED_ORIGINS: comma-separated origins (`https://app.example.com`), or `*`. */
export function parseAllowedOrigins(raw: string | undefined): string[] {
  const origins = commaSeparated(raw);
  for (const origin of origins) {
    if (origin !== '*' && URL.parse(origin)?.origin !== origin)
      throw new ConfigError(
        `CORS_ALLOWED_ORIGINS must list origins like https://app.example.com (scheme, host, optional port; no path), got "${origin}"`,
      );
  }
  return origins;
}

const MIN_JOB_TOKEN_SECRET_BYTES = 32;

/** JOB_TOKEN_KEYS: `kid:base64secret` entries, comma-separated; the first signs, every one verifies (rotation). */
export function parseJobTokenKeys(raw: string | undefined): JobTokenKey[] {
  return commaSeparated(raw).map((entry) => {
    const at = entry.indexOf(':');
    const kid = entry.slice(0, at);
    const secret = Buffer.from(entry.slice(at + 1), 'base64');
    if (at < 1 || !/^[A-Za-z0-9._-]{1,64}$/.test(kid)) {
      throw new ConfigError('JOB_TOKEN_KEYS must list kid:base64-secret entries (kid: letters, digits, . _ -)');
    }
    if (secret.length < MIN_JOB_TOKEN_SECRET_BYTES) {
      throw new ConfigError(`JOB_TOKEN_KEYS: the secret of key ${kid} must hold at least ${MIN_JOB_TOKEN_SECRET_BYTES} bytes (base64)`);
    }
    return { kid, secret: new Uint8Array(secret) };
  });
}
