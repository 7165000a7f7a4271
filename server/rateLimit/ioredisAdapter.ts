import { createHash } from 'node:crypto';
import type { Redis as IORedis } from 'ioredis';
import { withChildClientSpan } from '@/server/observability/tracing';

/**
 * Makes an ioredis client look like the part of `@upstash/redis` that
 * `@upstash/ratelimit` 2.2 uses for a single-region `slidingWindow` with
 * analytics, deny lists and dynamic limits off. Reading the library's dist:
 *
 *   safeEval(ctx, script, keys, args):
 *     try   redis.evalsha(script.hash, keys, args)   // hash hardcoded = sha1(script)
 *     catch if `${err}` includes "NOSCRIPT": redis.eval(script.script, keys, args)
 *
 * That is all it calls on this path (no SCRIPT LOAD). `get`/`set` are only
 * used by setDynamicLimit/getDynamicLimit and are here because the library's
 * config type asks for them.
 *
 * Redis 7.0 rejects the scripts' first line `#!lua flags=allow-key-locking`
 * (the flag exists from 7.2), so every script is rewritten without that flag
 * and the library's hash is mapped to the rewritten script's hash:
 *
 *   evalsha(libHash): unknown libHash -> throw NOSCRIPT, so the library sends
 *                     the script text via eval();
 *                     known -> EVALSHA sha1(rewritten); a real NOSCRIPT (after
 *                     SCRIPT FLUSH or a Redis restart) propagates, and the
 *                     library again falls back to eval().
 *   eval(script):     EVAL rewritten (which also caches it in Redis), then
 *                     remember sha1(script) -> sha1(rewritten).
 */
/** Redis commands' spans (docs/operations.md "Traces"), inside a request's span only; keys and arguments are not recorded. */
const REDIS_ATTRS = { 'db.system.name': 'redis' };

export class IoredisUpstashAdapter {
  /** sha1 of the library's original script -> sha1 of the script Redis runs. */
  private readonly shaMap = new Map<string, string>();
  /** How many times the library had to fall back to eval (for tests/diagnostics). */
  evalCount = 0;

  constructor(private readonly client: IORedis) {}

  async evalsha(hash: string, keys: string[], args: unknown[]): Promise<unknown> {
    const sha = this.shaMap.get(hash);
    if (!sha) throw new Error(`NOSCRIPT no rewritten script for ${hash} yet (ioredis adapter)`);
    return withChildClientSpan('redis EVALSHA', REDIS_ATTRS, () => this.client.evalsha(sha, keys.length, ...keys, ...args.map(toArg)));
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    this.evalCount++;
    const rewritten = stripKeyLockingFlag(script);
    const result = await withChildClientSpan('redis EVAL', REDIS_ATTRS, () => this.client.eval(rewritten, keys.length, ...keys, ...args.map(toArg)));
    this.shaMap.set(sha1(script), sha1(rewritten));
    return result;
  }

  async get(key: string): Promise<string | null> {
    return withChildClientSpan('redis GET', REDIS_ATTRS, () => this.client.get(key));
  }

  async set(key: string, value: unknown): Promise<string | null> {
    return withChildClientSpan('redis SET', REDIS_ATTRS, () => this.client.set(key, String(value)));
  }
}

/**
 * Removes `allow-key-locking` from a leading `#!lua flags=...` line, and the
 * whole line when no other flag remains (Redis then runs the script exactly
 * like a pre-7 EVAL script, which is what these scripts were written for).
 */
export function stripKeyLockingFlag(script: string): string {
  const m = /^#!lua flags=([^\n]*)\n/.exec(script);
  if (!m) return script;
  const flags = m[1].split(',').map((f) => f.trim()).filter((f) => f && f !== 'allow-key-locking');
  const rest = script.slice(m[0].length);
  return flags.length ? `#!lua flags=${flags.join(',')}\n${rest}` : rest;
}

function sha1(s: string): string {
  return createHash('sha1').update(s).digest('hex');
}

/** The library passes numbers (and `null` for an unused reset argument). */
function toArg(a: unknown): string | number {
  return typeof a === 'number' ? a : a == null ? '' : String(a);
}
