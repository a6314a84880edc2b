import type { Knex } from 'knex';
import * as search from '../../db/model-search.repository';
import { mapPage, type PageRequest } from '../../paging';
import { InvalidInputError } from '../../errors';
import { IDENTIFIER_PATTERN } from '../../openapi/schemas';
import { MAX_TAG_VALUE_LENGTH } from '../../openapi/schemas/model-tags';
import { ALIAS_PATTERN } from './aliases.service';
import { toModel, toVersion } from '../common';

/** The shared query parameters as the route has them (validated for type and length only). */
export interface RegistryQuery {
  tag?: string;
  metadata?: string;
  alias?: string;
  artifact_format?: string;
  created_after?: string;
  created_before?: string;
  updated_after?: string;
  updated_before?: string;
  sort?: 'created_at' | 'updated_at';
}

const TAG_KEY = new RegExp(IDENTIFIER_PATTERN);
const METADATA_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const METADATA_DEPTH = 8;
const ARTIFACT_FORMAT = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$/;
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
const CONTROL = /[\x00-\x1f\x7f]/;

/** `key` or `key=value`. */
export function parseTagFilter(text: string): { key: string; value?: string } {
  const at = text.indexOf('=');
  const key = at < 0 ? text : text.slice(0, at);
  const value = at < 0 ? undefined : text.slice(at + 1);
  if (!TAG_KEY.test(key)) {
    throw new InvalidInputError(
      `query parameter tag: ${JSON.stringify(key)} is not a tag key (a letter or digit, then letters, digits, _ . : -)`,
    );
  }
  if (value !== undefined && (value.length > MAX_TAG_VALUE_LENGTH || CONTROL.test(value))) {
    throw new InvalidInputError(
      `query parameter tag: the value must be at most ${MAX_TAG_VALUE_LENGTH} characters without control characters`,
    );
  }
  return { key, value };
}

/**
 * `a.b.c=value` as the containment documents that match it: `{"a":{"b":{"c":"value"}}}`, and also the number,
 * boolean or null the value reads as, so `epochs=10` finds metadata written either way.
 */
export function parseMetadataFilter(text: string): object[] {
  const at = text.indexOf('=');
  if (at < 0) throw new InvalidInputError('query parameter metadata must be <path>=<value>, e.g. dataset.name=fares-2026');
  const path = text.slice(0, at).split('.');
  const raw = text.slice(at + 1);
  if (path.length > METADATA_DEPTH || !path.every((k) => METADATA_KEY.test(k))) {
    throw new InvalidInputError(
      `query parameter metadata: the path must be 1 to ${METADATA_DEPTH} keys of letters, digits, _ or - joined by dots`,
    );
  }
  if (CONTROL.test(raw)) throw new InvalidInputError('query parameter metadata: the value must not hold control characters');
  const nest = (value: unknown) => path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as object;
  const alternatives = [nest(raw)];
  const literal = readLiteral(raw);
  if (literal !== undefined) alternatives.push(nest(literal));
  return alternatives;
}

function readLiteral(raw: string): number | boolean | null | undefined {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(raw) && Number.isFinite(Number(raw))) return Number(raw);
  return undefined;
}

function shared(q: RegistryQuery): search.RegistryFilter {
  if (q.alias !== undefined && !ALIAS_PATTERN.test(q.alias)) {
    throw new InvalidInputError('query parameter alias must be 1–63 characters of a-z 0-9 _ -, starting with a letter');
  }
  if (q.artifact_format !== undefined && !ARTIFACT_FORMAT.test(q.artifact_format)) {
    throw new InvalidInputError('query parameter artifact_format must be a letter or digit, then letters, digits, _ . + - (at most 64)');
  }
  return {
    tag: q.tag === undefined ? undefined : parseTagFilter(q.tag),
    metadata: q.metadata === undefined ? undefined : parseMetadataFilter(q.metadata),
    alias: q.alias,
    artifactFormat: q.artifact_format,
    createdAfter: q.created_after,
    createdBefore: q.created_before,
    updatedAfter: q.updated_after,
    updatedBefore: q.updated_before,
    sort: q.sort ?? 'created_at',
  };
}

/** The registry's searches: models (GET /v2/models) and versions across models (GET /v2/model-versions). */
export function createModelSearch(deps: { knex: Knex }) {
  const { knex } = deps;
  return {
    async models(page: PageRequest, q: RegistryQuery & { name?: string; name_prefix?: string; status?: string }) {
      const filter = { ...shared(q), name: q.name, namePrefix: q.name_prefix, status: q.status };
      return mapPage(await search.searchModels(knex, page, filter), toModel);
    },

    async versions(page: PageRequest, q: RegistryQuery & { model_id?: string; version_prefix?: string; status?: string }) {
      const filter = { ...shared(q), modelId: q.model_id, versionPrefix: q.version_prefix, status: q.status };
      return mapPage(await search.searchVersions(knex, page, filter), toVersion);
    },
  };
}
