import { DomainError } from '@/server/domain/errors';
import { requireTimeZone } from '@/server/domain/callerZone';
import { readJsonBody } from './body';
import type { Call } from './call';
import { validationError } from './envelope';
import type { AnyOperation } from './operation';

/** A call's input as its schemas parsed it (each undefined when the operation declares none). */
export type ParsedInput = { body: unknown; query: unknown; params: unknown };

/**
 * Step: parse. Path and query through their zod schemas, the caller's `time_zone` (which
 * settles `call.zone`), then the body: read with a size cap, JSON only, validated by its
 * strict schema. Text PostgreSQL cannot store faithfully is refused first.
 */
export async function parse(call: Call, rawParams: Record<string, string>): Promise<ParsedInput> {
  const { op } = call;
  const params = op.params ? parseOrThrow(op.params, rawParams, 'path') : undefined;
  const query = op.query ? parseOrThrow(op.query, Object.fromEntries(call.url.searchParams), 'query') : undefined;
  const asked = (query as { time_zone?: unknown } | undefined)?.time_zone;
  if (typeof asked === 'string') call.zone = requireTimeZone(asked);
  const body = op.body ? parseOrThrow(op.body, await readJsonBody(call.req, call.config.maxBodyBytes), 'body') : undefined;
  return { body, query, params };
}

/** Whether the path values will pass the parse step (a rate limit keyed on them counts only those). */
export function validPath(op: AnyOperation, raw: Record<string, string>): boolean {
  return !unstorableText(raw, 'path') && (!op.params || op.params.safeParse(raw).success);
}

type Schema = { safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: Parameters<typeof validationError>[1] } };

function parseOrThrow(schema: Schema, value: unknown, where: 'body' | 'query' | 'path'): unknown {
  const bad = unstorableText(value, where);
  if (bad) {
    throw new DomainError('invalid_request', `Invalid ${bad}: text may not contain U+0000 or unpaired surrogates`, {
      details: { fields: [{ path: bad, message: 'contains U+0000 or an unpaired surrogate', code: 'invalid_string' }] },
    });
  }
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(where, r.error, value);
  return r.data;
}

/**
 * Path of the first string (key or value) PostgreSQL cannot store as sent:
 * U+0000 is refused by PostgreSQL, and unpaired surrogates would be silently
 * replaced (so two different names could collide). Null when all is well.
 */
function unstorableText(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') || !value.isWellFormed() ? path : null;
  if (depth > 64 || value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const child = `${path}.${k}`;
    if (unstorableText(k, child, depth + 1) || unstorableText(v, child, depth + 1)) return child;
  }
  return null;
}
