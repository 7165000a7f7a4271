import type { Db, DbHandle, Executor } from '@/db/client';
import { API_KEY_AUTH_CHANNEL, type ApiKeyRow } from '@/db/hot/access';

/**
 * The API keys this process verified, by hash, so a request with a known good key skips the
 * key look-up (docs/architecture.md "API keys"). Trusted only while the database's change
 * feed is heard: migration 0024 has PostgreSQL announce on API_KEY_AUTH_CHANNEL every change
 * that can turn a key away (revocation, the agent disabled, its scope or permissions changed,
 * a key or agent deleted, by any writer), and every instance drops what it was told about.
 * While the listening connection is down (or not yet up) nothing is served from memory and
 * the memory is emptied; a revocation or change made through this process is also dropped
 * here directly, before its answer. An entry lives at most ENTRY_TTL_MS.
 */
const ENTRY_TTL_MS = 30_000;
/** At most this many keys are kept; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

type Entry = { row: ApiKeyRow; at: number };

export class VerifiedKeys {
  private readonly entries = new Map<string, Entry>();
  private live = false;
  /** Moves on every change heard (and every change of `live`): a read begun before one is not kept. */
  private generation = 0;

  /** The verified key with this hash, or undefined (not verified here, expired, or the feed is not heard). */
  get(keyHash: string, now: number): ApiKeyRow | undefined {
    if (!this.live) return undefined;
    const e = this.entries.get(keyHash);
    if (!e) return undefined;
    if (now - e.at > ENTRY_TTL_MS) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return e.row;
  }

  /** The generation to hand back to put() with a row read after this call. */
  mark(): number {
    return this.generation;
  }

  /** Keep a key read from the database, unless a change was heard since mark() (the read may predate it). */
  put(keyHash: string, row: ApiKeyRow, mark: number, now: number): void {
    if (!this.live || mark !== this.generation || row.revokedAt || row.disabled) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyHash, { row, at: now });
  }

  /** A payload of the change feed: `k:<key id>`, `a:<agent id>`, or `*` (anything else also empties the memory). */
  changed(payload: string): void {
    this.generation++;
    const [kind, id] = [payload.slice(0, 2), payload.slice(2)];
    if (kind !== 'k:' && kind !== 'a:') {
      this.entries.clear();
      return;
    }
    for (const [hash, e] of this.entries) if ((kind === 'k:' ? e.row.keyId : e.row.agentId) === id) this.entries.delete(hash);
  }

  /** The feed is heard (true), or lost (false): either way what was kept may have missed a change. */
  feed(live: boolean): void {
    this.generation++;
    this.entries.clear();
    this.live = live;
  }

  get size(): number {
    return this.entries.size;
  }
}

type Registered = { cache: VerifiedKeys; start: () => void };
/**
 * Process-wide, on globalThis: Next.js bundles each route separately, each with its own copy of
 * this module, and the database handle they share (server/db.ts) is registered by whichever
 * route opened it.
 */
const REGISTRY = Symbol.for('agent-scheduler.verifiedKeys');
const g = globalThis as typeof globalThis & { [REGISTRY]?: { registry: WeakMap<Executor, Registered>; all: Set<VerifiedKeys> } };
const { registry, all } = (g[REGISTRY] ??= { registry: new WeakMap(), all: new Set() });

/**
 * Give the database `handle` a cache of verified keys (server/db.ts does, for the service's
 * database). Its change feed is opened on the first authentication, so scripts that never
 * authenticate open no listening connection.
 */
export function enableVerifiedKeys(handle: Pick<DbHandle, 'db' | 'listen'>): VerifiedKeys {
  const existing = registry.get(handle.db);
  if (existing) return existing.cache;
  const cache = new VerifiedKeys();
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    all.add(cache);
    handle.listen(API_KEY_AUTH_CHANNEL, (p) => cache.changed(p), (live) => cache.feed(live)).catch(() => cache.feed(false));
  };
  registry.set(handle.db, { cache, start });
  return cache;
}

/** The cache of verified keys for `db`, its feed started, or undefined (a transaction, or a database without one). */
export function verifiedKeysOf(db: Executor): VerifiedKeys | undefined {
  const r = registry.get(db as Db);
  if (!r) return undefined;
  r.start();
  return r.cache;
}

/**
 * A change to a key or an agent made by this process has committed: drop it from every cache
 * here at once, without waiting for the notification (which tells the other instances).
 */
export function forgetVerified(change: { keyId: string } | { agentId: string }): void {
  const payload = 'keyId' in change ? `k:${change.keyId}` : `a:${change.agentId}`;
  for (const cache of all) cache.changed(payload);
}
