import { BoundedCache } from '../shared/bounded-cache.ts';
import type { TokenGrant } from './account-store.ts';

export interface CachedGrant {
  readonly grant: TokenGrant;
  /** When the stored last use was last written, in ms (0: never). */
  lastUsedMs: number;
}

/**
 * Grants of tokens whose secret has already been checked, so a request costs no query and no hash. It is
 * emptied whenever `dataVersion` changes, which SQLite's `PRAGMA data_version` does as soon as another
 * connection (the CLI's `token revoke`, another API process) has committed anything to the file, and by
 * the store itself on every revocation it makes: a revoked token is refused at once, never served from here.
 */
export class TokenCache {
  private readonly grants: BoundedCache<string, CachedGrant>;
  private version: number;

  constructor(
    private readonly dataVersion: () => number,
    capacity = 10_000,
  ) {
    this.grants = new BoundedCache({ entries: capacity, weight: capacity });
    this.version = dataVersion();
  }

  /** The grant cached for this exact token, once the file is known not to have changed since it was cached. */
  get(token: string): CachedGrant | undefined {
    const version = this.dataVersion();
    if (version !== this.version) {
      this.version = version;
      this.grants.clear();
      return undefined;
    }
    return this.grants.get(token);
  }

  /** Call only after `get` missed, with what was read after it: what it read is then no older than the version. */
  remember(token: string, cached: CachedGrant): void {
    this.grants.set(token, cached, 1);
  }

  clear(): void {
    this.grants.clear();
  }
}
