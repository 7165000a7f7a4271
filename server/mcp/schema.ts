import { z } from 'zod';
import type { AnyOperation } from '@/server/http/operation';

/**
 * The input schema of an MCP tool, in the subset of JSON Schema every
 * function-calling host accepts (docs/agents.md "Tool schemas"): one plain
 * `type: object` at the top with `properties`, `required` and
 * `additionalProperties: false`; no combinator or enum at the top; every
 * property listed in `required`, the optional ones nullable (OpenAI's strict
 * mode); only the keywords OpenAI's strict mode documents. It is derived from
 * the operation's own zod schemas, which still validate every call: null for
 * an optional field means "absent" (`dropNulls`), and a union body
 * (create_hold) is offered as its discriminator plus the union of its
 * branches' fields, checked at call time by the same discriminated union.
 */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
  format?: string;
  [k: string]: unknown;
};

/** Added to every mutating tool's input: the Idempotency-Key of the call (one is generated when absent). */
export const IDEMPOTENCY_ARG = 'idempotency_key';

/** The keywords OpenAI's strict mode documents ("Supported schemas"), per instance type, plus annotations. */
export const STRICT_KEYWORDS = {
  any: ['type', 'description', 'enum', 'anyOf', '$ref', '$defs'],
  string: ['pattern', 'format'],
  number: ['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'additionalProperties'],
} as const;
/** String formats strict mode supports. */
export const STRICT_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];

/** The general description of a date-time input (common.ts UtcDateTime): said once, in the server instructions, instead. */
const DEFAULT_DATE_TIME_DESCRIPTION = /^RFC 3339 date-time/;

/** The zod schema as JSON Schema, with the shared pieces (`$defs`, e.g. DateTimeInput) inlined: not every host resolves `$ref`. */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _drop, $defs, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const inline = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(inline);
    if (!v || typeof v !== 'object') return v;
    const { $ref, ...own } = v as JsonSchema & { $ref?: string };
    const target = typeof $ref === 'string' ? $defs?.[$ref.replace('#/$defs/', '')] : undefined;
    const merged = target ? { ...(inline(target) as JsonSchema), ...own } : own;
    return Object.fromEntries(Object.entries(merged).map(([k, x]) => [k, inline(x)]));
  };
  return inline(rest) as JsonSchema;
}

const isNull = (s: JsonSchema) => s.type === 'null';
const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** Whether a (source) schema admits null itself. */
function admitsNull(s: JsonSchema | undefined): boolean {
  if (!s) return false;
  if (typesOf(s).includes('null')) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(admitsNull);
}

/** One branch-free object out of a union of objects: the discriminator's values as an enum, each field once. */
function mergeUnion(branches: JsonSchema[]): JsonSchema {
  const discriminators = Object.keys(branches[0].properties ?? {}).filter((k) => branches.every((b) => b.properties?.[k]?.const !== undefined));
  const properties: Record<string, JsonSchema> = {};
  const required = new Set(branches[0].required ?? []);
  for (const b of branches) for (const r of [...required]) if (!(b.required ?? []).includes(r)) required.delete(r);
  for (const d of discriminators) properties[d] = { type: 'string', enum: branches.map((b) => b.properties![d].const) };
  for (const b of branches) {
    const tag = discriminators.map((d) => `${d} ${JSON.stringify(b.properties![d].const)}`).join(', ');
    for (const [k, v] of Object.entries(b.properties ?? {})) {
      if (discriminators.includes(k) || properties[k]) continue;
      const inAll = branches.every((o) => o.properties?.[k]);
      properties[k] = inAll ? v : { ...v, description: [v.description, `${(b.required ?? []).includes(k) ? 'Required' : 'Only'} with ${tag}`].filter(Boolean).join('. ') };
    }
  }
  return { type: 'object', properties, required: [...required], additionalProperties: false };
}

/** A property's schema in the strict subset; `optional` ones become nullable. */
function strictify(s: JsonSchema, optional: boolean): JsonSchema {
  const branches = s.anyOf ?? s.oneOf;
  let out: JsonSchema;
  if (branches) {
    const nonNull = branches.filter((b) => !isNull(b));
    if (nonNull.every((b) => typesOf(b).join() === 'string')) {
      const consts = nonNull.map((b) => b.const ?? b.enum);
      out = consts.every((c) => c !== undefined) ? { type: 'string', enum: consts.flat() } : { type: 'string' };
    } else if (nonNull.length === 1) out = strictify(nonNull[0], false);
    else out = { anyOf: nonNull.map((b) => strictify(b, false)) };
    if (s.description) out.description = s.description;
    if (nonNull.length < branches.length) optional = true;
  } else {
    out = {};
    const type = typesOf(s).filter((t) => t !== 'null');
    if (type.length) out.type = type.length === 1 ? type[0] : type;
    const description = [s.description, s.default !== undefined ? `default ${JSON.stringify(s.default)}` : undefined].filter(Boolean).join('; ');
    if (description) out.description = description;
    if (s.const !== undefined) out.enum = [s.const];
    if (s.enum) out.enum = s.enum;
    if (type.includes('string')) {
      // An email's field name says it (owner_emails, attendees' email; owner_email: FIELD_NOTES) and the server checks it.
      if (s.format === 'email') {
        // nothing: neither the format nor its pattern
      } else if (s.format && STRICT_FORMATS.includes(s.format)) out.format = s.format;
      else if (typeof s.pattern === 'string') out.pattern = s.pattern; // a format says it: its long regex is left to the server
      if (s.format === 'date-time' && out.description && DEFAULT_DATE_TIME_DESCRIPTION.test(out.description)) delete out.description;
    }
    for (const k of STRICT_KEYWORDS.number) if (typeof s[k] === 'number' && Math.abs(s[k] as number) < 2 ** 31) out[k] = s[k]; // not the safe-integer limits
    if (type.includes('array')) {
      out.items = s.items ? strictify(s.items, false) : {};
      for (const k of ['minItems', 'maxItems']) if (typeof s[k] === 'number') out[k] = s[k];
    }
    if (type.includes('object')) Object.assign(out, strictObject(s.properties ?? {}, s.required ?? []));
  }
  return optional ? nullable(out) : out;
}

function strictObject(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  const props = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, strictify(v, !required.includes(k))]));
  return { type: 'object', properties: props, required: Object.keys(props), additionalProperties: false };
}

function nullable(s: JsonSchema): JsonSchema {
  if (s.anyOf) return { ...s, anyOf: [...s.anyOf, { type: 'null' }] };
  const types = typesOf(s);
  return { ...s, type: [...types, 'null'], ...(s.enum ? { enum: [...s.enum, null] } : {}) };
}

/** The operation's path, query and body schemas as one object (a union body merged into one), as validated. */
function sourceSchema(op: AnyOperation): JsonSchema {
  const out: JsonSchema = { type: 'object', properties: {}, required: [] };
  for (const part of [op.params, op.query, op.body]) {
    if (!part) continue;
    let p = jsonSchemaOf(part as z.ZodType);
    const union = p.oneOf ?? p.anyOf;
    if (union) p = mergeUnion(union);
    if (p.type !== 'object' || !p.properties) throw new Error(`${op.operationId}: only object schemas can be flattened into a tool input`);
    Object.assign(out.properties!, p.properties);
    out.required!.push(...(p.required ?? []));
  }
  if (op.method !== 'GET' && op.idempotency !== false) {
    out.properties![IDEMPOTENCY_ARG] = { type: 'string' }; // what it does: the server instructions
  }
  return out;
}

/**
 * What a top-level field says in a tool schema, where the REST schema says more than a model
 * needs or says what the server instructions say once for every tool (server/mcp/tools.ts
 * MCP_INSTRUCTIONS "Fields shared by several tools"): a string replaces the field's description,
 * null drops it; `format: null` drops a format its name already says. Keeps `tools/list` small
 * as tools are added (docs/agents.md "What a host receives").
 */
const FIELD_NOTES: Record<string, { description?: string | null; format?: null }> = {
  owner_email: { format: null },
  from: { description: null },
  to: { description: null },
  agent: { description: null },
  limit: { description: null },
  next_available_lookahead_hours: { description: 'default 72' },
  max_per_day: { description: null }, // in the instructions
  ttl_seconds: { description: 'default 600' },
  title: { description: null },
  time_zone: { description: null }, // explained once in the instructions (server/mcp/tools.ts)
  // A recurring series (create_booking, cancel_booking): explained once in the instructions.
  recurrence: { description: null },
  min_occurrences: { description: null },
  pool_member: { description: null },
  scope: { description: null },
};

function withFieldNotes(schema: JsonSchema): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, v]) => {
      const note = FIELD_NOTES[k];
      if (!note) return [k, v];
      const { description, format, ...rest } = v;
      const d = note.description === undefined ? description : note.description;
      return [k, { ...rest, ...(d ? { description: d } : {}), ...(format && note.format !== null ? { format } : {}) }];
    }),
  );
  return { ...schema, properties };
}

const cache = new WeakMap<AnyOperation, { source: JsonSchema; strict: JsonSchema }>();
function schemasOf(op: AnyOperation) {
  let hit = cache.get(op);
  if (!hit) {
    const source = sourceSchema(op);
    hit = { source, strict: withFieldNotes(strictObject(source.properties!, source.required!)) };
    cache.set(op, hit);
  }
  return hit;
}

/** The tool's `inputSchema` (see the top of this file). */
export function toolInputSchema(op: AnyOperation): JsonSchema {
  return schemasOf(op).strict;
}

/** Removes the nulls a strict host sends for fields it leaves out (where the operation's own schema admits no null). */
export function dropNulls(op: AnyOperation, args: Record<string, unknown>): Record<string, unknown> {
  return walk(args, schemasOf(op).source) as Record<string, unknown>;
}

function walk(value: unknown, s: JsonSchema | undefined): unknown {
  if (!s || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => walk(v, s.items ?? (s.anyOf ?? s.oneOf)?.find((b) => b.items)?.items));
  const props = s.properties ?? (s.anyOf ?? s.oneOf)?.find((b) => b.properties)?.properties;
  if (!props) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null && !admitsNull(props[k])) continue;
    out[k] = walk(v, props[k]);
  }
  return out;
}
