import { createLocalJWKSet, errors, JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import type { Logger } from 'pino';
import { UnavailableError } from '../errors';

export interface KeyStoreOptions {
  url: string;
  /** Total time one fetch of the key set may take, headers and body. */
  timeoutSeconds: number;
  /** A key set older than this is refreshed in the background; requests go on with it meanwhile. */
  refreshSeconds: number;
  /** The last fetched key set stays usable this long after its fetch while refreshes fail (an IdP outage). */
  maxStalenessSeconds: number;
  /**
   * Refetches for unknown `kid`s start at most once per this interval; a request naming one waits for the next
   * (never refused for the interval), and one that a refetch within the interval showed missing is refused at once.
   */
  minRefetchSeconds: number;
  log?: Logger;
  /** The clock, replaceable in unit tests. */
  now?: () => number;
}

/** Key sets are small; a larger answer is not a key set. */
const MAX_KEY_SET_BYTES = 512 * 1024;
/** Key ids a refetch showed missing, remembered for one interval so that their repeats cost nothing. */
const MAX_MISSING_KIDS = 10_000;

/** The key set at `url`, within `timeoutSeconds` for the whole exchange, refused when it is not a small JWK set. */
async function fetchKeySet(options: Pick<KeyStoreOptions, 'url' | 'timeoutSeconds'>): Promise<JSONWebKeySet> {
  // One signal for the whole exchange: it aborts a body that stalls after the headers, too.
  const signal = AbortSignal.timeout(options.timeoutSeconds * 1000);
  const response = await fetch(options.url, { signal, headers: { Accept: 'application/json' }, redirect: 'error' });
  if (response.status !== 200) throw new Error(`the key set answered HTTP ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_KEY_SET_BYTES) throw new Error('the key set is larger than 512 KB');
  const set = JSON.parse(text) as JSONWebKeySet;
  if (!set || !Array.isArray(set.keys)) throw new Error('the answer is not a JWK set');
  return set;
}

const unavailable = (err: unknown) =>
  new UnavailableError(`the identity provider is unavailable: its signing keys could not be fetched (${(err as Error).message})`, {
    cause: err,
  });

/** Remembers a key id a refetch did not find, forgetting the oldest past MAX_MISSING_KIDS. */
function remember(missing: Map<string, number>, kid: string, at: number) {
  missing.delete(kid);
  if (missing.size >= MAX_MISSING_KIDS) missing.delete(missing.keys().next().value!);
  missing.set(kid, at);
}

/**
 * The identity provider's signing keys, cached so that an IdP outage locks nobody out: the last good set is
 * used for up to `maxStalenessSeconds` while refreshes go on in the background, a new `kid` is fetched at once
 * (rate-limited), and a fetch never takes longer than `timeoutSeconds`, however slowly the IdP answers.
 */
export function createRemoteKeyStore(options: KeyStoreOptions): { getKey: JWTVerifyGetKey; refresh(): Promise<void> } {
  const now = options.now ?? Date.now;
  let local: JWTVerifyGetKey | undefined;
  let fetchedAt = -Infinity;
  let lastAttemptAt = -Infinity;
  let lastError: unknown;
  let lastUnknownKidRefetchAt = -Infinity;
  let inFlight: Promise<void> | undefined;
  /** The refetch the unknown key ids asked for, before it starts; shared by every one that asks meanwhile. */
  let queued: Promise<void> | undefined;
  /** Key id → when the refetch that did not find it started. */
  const missing = new Map<string, number>();
  const interval = options.minRefetchSeconds * 1000;

  /** One fetch at a time; concurrent callers share it. */
  function refresh(): Promise<void> {
    inFlight ??= (async () => {
      lastAttemptAt = now();
      try {
        const set = await fetchKeySet(options);
        local = createLocalJWKSet(set);
        fetchedAt = now();
        lastError = undefined;
      } catch (err) {
        lastError = err;
        options.log?.warn(
          { err: (err as Error).message, url: options.url, ageSeconds: Math.round((now() - fetchedAt) / 1000) },
          'signing key refresh failed',
        );
        throw err;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  }

  const age = () => (now() - fetchedAt) / 1000;
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (!local || age() > options.maxStalenessSeconds) {
      // No usable keys at all: this request has to wait for the fetch (bounded by its timeout), unless one just failed.
      if (lastError && !inFlight && (now() - lastAttemptAt) / 1000 < options.minRefetchSeconds) throw unavailable(lastError);
      await (inFlight ?? refresh()).catch((err) => {
        throw unavailable(err);
      });
    } else if (age() > options.refreshSeconds && !inFlight) {
      refresh().catch(() => undefined); // logged inside; the current keys serve meanwhile
    }
    try {
      return await local!(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      const kid = String(header.kid ?? '');
      const missedAt = missing.get(kid);
      if (missedAt !== undefined && now() - missedAt < interval) throw err;
    }
    // A key id we have not seen: perhaps a key the IdP just published. The refetch must start after this request
    // came, or it may predate the key; made-up key ids share the same refetches, so they cannot push it back.
    const askedAt = now();
    await refetchAfter(askedAt).catch((err) => {
      throw unavailable(err);
    });
    try {
      return await local!(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey) remember(missing, String(header.kid ?? ''), lastAttemptAt);
      throw err;
    }
  };

  /** A refetch that starts at or after `since`: the one under way if it did, else the next, one interval after the last. */
  function refetchAfter(since: number): Promise<void> {
    if (inFlight && lastAttemptAt >= since) return inFlight;
    queued ??= (async () => {
      await inFlight?.catch(() => undefined);
      const wait = lastUnknownKidRefetchAt + interval - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      lastUnknownKidRefetchAt = now();
      // Requests from here on need a later refetch: this one may have been served before their key was published.
      queued = undefined;
      await (inFlight ?? refresh());
    })();
    return queued;
  }

  return { getKey, refresh };
}
