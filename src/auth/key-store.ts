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
  const store = new RemoteKeyStore(options);
  return { getKey: (header, token) => store.getKey(header, token), refresh: () => store.refresh() };
}

class RemoteKeyStore {
  private readonly now: () => number;
  private local: JWTVerifyGetKey | undefined;
  private fetchedAt = -Infinity;
  private lastAttemptAt = -Infinity;
  private lastError: unknown;
  private lastUnknownKidRefetchAt = -Infinity;
  private inFlight: Promise<void> | undefined;
  /** The refetch the unknown key ids asked for, before it starts; shared by every one that asks meanwhile. */
  private queued: Promise<void> | undefined;
  /** Key id → when the refetch that did not find it started. */
  private readonly missing = new Map<string, number>();
  private readonly interval: number;

  constructor(private readonly options: KeyStoreOptions) {
    this.now = options.now ?? Date.now;
    this.interval = options.minRefetchSeconds * 1000;
  }

  /** One fetch at a time; concurrent callers share it. */
  refresh(): Promise<void> {
    this.inFlight ??= (async () => {
      this.lastAttemptAt = this.now();
      try {
        this.local = createLocalJWKSet(await fetchKeySet(this.options));
        this.fetchedAt = this.now();
        this.lastError = undefined;
      } catch (err) {
        this.lastError = err;
        this.options.log?.warn(
          { err: (err as Error).message, url: this.options.url, ageSeconds: Math.round(this.age()) },
          'signing key refresh failed',
        );
        throw err;
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }

  async getKey(...[header, token]: Parameters<JWTVerifyGetKey>): Promise<Awaited<ReturnType<JWTVerifyGetKey>>> {
    await this.usableKeys();
    try {
      return await this.local!(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      const missedAt = this.missing.get(String(header.kid ?? ''));
      if (missedAt !== undefined && this.now() - missedAt < this.interval) throw err;
    }
    // A key id we have not seen: perhaps a key the IdP just published. The refetch must start after this request
    // came, or it may predate the key; made-up key ids share the same refetches, so they cannot push it back.
    await this.refetchAfter(this.now()).catch((err) => {
      throw unavailable(err);
    });
    try {
      return await this.local!(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey) remember(this.missing, String(header.kid ?? ''), this.lastAttemptAt);
      throw err;
    }
  }

  private age(): number {
    return (this.now() - this.fetchedAt) / 1000;
  }

  /** Waits for keys when there are none fresh enough to use; starts a background refresh when they are getting old. */
  private async usableKeys(): Promise<void> {
    if (!this.local || this.age() > this.options.maxStalenessSeconds) {
      // No usable keys at all: this request has to wait for the fetch (bounded by its timeout), unless one just failed.
      const justFailed = (this.now() - this.lastAttemptAt) / 1000 < this.options.minRefetchSeconds;
      if (this.lastError && !this.inFlight && justFailed) throw unavailable(this.lastError);
      await (this.inFlight ?? this.refresh()).catch((err) => {
        throw unavailable(err);
      });
    } else if (this.age() > this.options.refreshSeconds && !this.inFlight) {
      this.refresh().catch(() => undefined); // logged inside; the current keys serve meanwhile
    }
  }

  /** A refetch that starts at or after `since`: the one under way if it did, else the next, one interval after the last. */
  private refetchAfter(since: number): Promise<void> {
    if (this.inFlight && this.lastAttemptAt >= since) return this.inFlight;
    this.queued ??= (async () => {
      await this.inFlight?.catch(() => undefined);
      const wait = this.lastUnknownKidRefetchAt + this.interval - this.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.lastUnknownKidRefetchAt = this.now();
      // Requests from here on need a later refetch: this one may have been served before their key was published.
      this.queued = undefined;
      await (this.inFlight ?? this.refresh());
    })();
    return this.queued;
  }
}
