import type { FieldLocator } from './envelope';
import type { AnyOperation } from './operation';

type Def = { type?: string; shape?: Record<string, unknown>; options?: unknown[]; in?: unknown; innerType?: unknown };
const defOf = (schema: unknown): Def | undefined => (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** Top-level keys of an input schema: objects, unions of objects, and wrappers (optional, default, pipe) around them. */
function topKeys(schema: unknown, out = new Set<string>(), depth = 0): Set<string> {
  const def = defOf(schema);
  if (!def || depth > 8) return out;
  if (def.type === 'object' && def.shape) for (const k of Object.keys(def.shape)) out.add(k);
  for (const option of def.options ?? []) topKeys(option, out, depth + 1);
  if (def.in) topKeys(def.in, out, depth + 1);
  if (def.innerType) topKeys(def.innerType, out, depth + 1);
  return out;
}

const cache = new WeakMap<AnyOperation, FieldLocator>();

/**
 * Maps the domain's field names (`end`, `window`, `cursor`) to where the
 * operation's request carries them (`body.end`, `query.cursor`): the body
 * or query schema that declares the field's first segment (both, query
 * first, when both declare it: PUT /v1/schedule-rules takes `owner_email`
 * in either), else the body when the operation has one, else the query.
 */
export function fieldLocator(op: AnyOperation): FieldLocator {
  let locate = cache.get(op);
  if (!locate) {
    const body = topKeys(op.body);
    const query = topKeys(op.query);
    const fallback = op.body ? 'body' : op.query ? 'query' : null;
    locate = (field) => {
      const top = field.split('.')[0];
      const where = [...(query.has(top) ? ['query'] : []), ...(body.has(top) ? ['body'] : [])];
      if (!where.length && fallback) where.push(fallback);
      return where.length ? where.map((w) => `${w}.${field}`) : [field];
    };
    cache.set(op, locate);
  }
  return locate;
}
