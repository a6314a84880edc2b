import type { Schemas } from '../../openapi/types';

export type Artifact = Schemas['ModelArtifact'];

/** Most artifacts one version may carry: a model file, its tokenizer, a signature — not a dataset's shards. */
export const MAX_ARTIFACTS = 32;
export const MAX_URI_LENGTH = 2048;
export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
export const ARTIFACT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$/;
export const ARTIFACT_FORMAT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$/;

// Bucket names as the stores define them (S3: 3–63 of a-z0-9.-; GCS: also _ and up to 222 with dots), then a key.
const S3_URI = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/\S+$/;
const GS_URI = /^gs:\/\/[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]\/\S+$/;

/**
 * Why a URI is not one the registry stores, or undefined. Its syntax only: the service never fetches it. Credentials
 * in the URI are refused, since every registry reader would see them.
 */
export function uriProblem(uri: string): string | undefined {
  if (uri.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return 'contains whitespace or control characters';
  const scheme = /^([a-z0-9+.-]+):\/\//i.exec(uri)?.[1].toLowerCase();
  if (scheme === 's3') return S3_URI.test(uri) ? undefined : 'must be s3://<bucket>/<key> with a valid bucket name';
  if (scheme === 'gs') return GS_URI.test(uri) ? undefined : 'must be gs://<bucket>/<object> with a valid bucket name';
  if (scheme !== 'https' && scheme !== 'file') return 'must use one of the schemes s3, gs, https, file';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not a valid URI';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (scheme === 'https') return url.hostname ? undefined : 'must name a host';
  return url.hostname === '' && url.pathname.length > 1 ? undefined : 'must be file:///<absolute path> (no host)';
}

/** Why one artifact is not valid, naming the field (`artifacts[0].uri ...`), or undefined. */
function artifactProblem(a: unknown, field: string): string | undefined {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return `${field} must be an object`;
  const r = a as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!['name', 'uri', 'sha256', 'size_bytes', 'format'].includes(key)) return `${field} has an unknown field ${key}`;
  }
  if (typeof r.name !== 'string' || !ARTIFACT_NAME_PATTERN.test(r.name))
    return `${field}.name must be 1–128 characters of A-Z a-z 0-9 _ . / -, starting with a letter or digit`;
  if (typeof r.uri !== 'string') return `${field}.uri must be a string`;
  const uri = uriProblem(r.uri);
  if (uri) return `${field}.uri ${uri}`;
  if (typeof r.sha256 !== 'string' || !SHA256_PATTERN.test(r.sha256)) return `${field}.sha256 must be 64 lowercase hexadecimal digits`;
  if (typeof r.size_bytes !== 'number' || !Number.isSafeInteger(r.size_bytes) || r.size_bytes < 0)
    return `${field}.size_bytes must be a non-negative integer`;
  if (typeof r.format !== 'string' || !ARTIFACT_FORMAT_PATTERN.test(r.format))
    return `${field}.format must be 1–64 characters of A-Z a-z 0-9 _ . + -, starting with a letter or digit`;
  return undefined;
}

/** Why a list of artifacts is not valid (the first problem, naming its field), or undefined. */
export function artifactsProblem(list: unknown, field = 'artifacts'): string | undefined {
  if (!Array.isArray(list)) return `${field} must be an array`;
  if (list.length > MAX_ARTIFACTS) return `${field} has ${list.length} items; at most ${MAX_ARTIFACTS}`;
  const names = new Set<string>();
  for (const [i, a] of list.entries()) {
    const problem = artifactProblem(a, `${field}[${i}]`);
    if (problem) return problem;
    const name = (a as Artifact).name;
    if (names.has(name)) return `${field}[${i}].name ${name} is used twice`;
    names.add(name);
  }
  return undefined;
}

/**
 * The artifacts a training job's output reports, in the documented shape `{"artifacts": [...]}`: the list when the
 * output has a valid one, `none` when it has none, or the problem when it has one that does not parse.
 */
export function reportedArtifacts(output: unknown): { artifacts: Artifact[] } | { none: true } | { problem: string } {
  if (typeof output !== 'object' || output === null || !('artifacts' in output)) return { none: true };
  const list = output.artifacts;
  const problem = artifactsProblem(list, 'output.artifacts');
  return problem ? { problem } : { artifacts: list as Artifact[] };
}
