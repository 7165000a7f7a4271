import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { operationWrites } from '@/server/http/operation';
import { withRetryAfter } from '@/server/mcp/execute';
import { STRICT_FORMATS, STRICT_KEYWORDS, type JsonSchema } from '@/server/mcp/schema';
import { MCP_INSTRUCTIONS, MCP_TOOLS, splitArguments, toolAnnotations, toolInputSchema, TOOLS_LIST_BUDGET_BYTES } from '@/server/mcp/tools';
import { HoldCreateBody } from '@/server/schemas/scheduling';

/** The tools' input schemas are the operations' zod schemas in the subset every host loads; arguments split back as REST expects them. */
const ajv = new Ajv({ strict: false });
addFormats(ajv);
const tool = (name: string) => MCP_TOOLS.find((t) => t.name === name)!;
const slot = { start: '2030-01-07T09:00:00Z', end: '2030-01-07T09:30:00Z' };

/**
 * What a function-calling host accepts, as documented:
 * - OpenAI function calling with `strict: true` (platform.openai.com/docs/guides/structured-outputs,
 *   "Supported schemas"): the root is an object, not anyOf; every object has
 *   `additionalProperties: false` and lists every property in `required` (an optional field is
 *   a union with null); types string, number, integer, boolean, object, array, null, enum and
 *   anyOf; supported keywords: string `pattern`, `format` (date-time, time, date, duration,
 *   email, hostname, ipv4, ipv6, uuid); number `multipleOf`, `maximum`, `exclusiveMaximum`,
 *   `minimum`, `exclusiveMinimum`; array `minItems`, `maxItems`; plus `description`,
 *   `$ref`/`$defs`. Not: allOf, oneOf, not, if/then/else, minLength/maxLength, default, const.
 *   Function-calling hosts (OpenAI-compatible ones) also refuse a top-level
 *   oneOf/anyOf/allOf/enum/not.
 * - Anthropic tool use (docs.anthropic.com, "Tool use": `input_schema`): a JSON Schema whose
 *   top level is `type: "object"`.
 */
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
function hostViolations(root: JsonSchema): string[] {
  const out: string[] = [];
  if (root.type !== 'object') out.push('top: type must be "object" (Anthropic input_schema, OpenAI parameters)');
  for (const k of ['oneOf', 'anyOf', 'allOf', 'enum', 'not']) if (k in root) out.push(`top: ${k} is refused at the top level`);
  if (!root.properties) out.push('top: properties missing');
  if (!Array.isArray(root.required)) out.push('top: required missing');
  const check = (s: JsonSchema, at: string) => {
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    for (const t of types) if (!TYPES.includes(t)) out.push(`${at}: type ${t}`);
    if (!types.length && !s.anyOf && !s.enum && !s.$ref) out.push(`${at}: no type`);
    const allowed = new Set<string>([...STRICT_KEYWORDS.any]);
    if (types.includes('string')) STRICT_KEYWORDS.string.forEach((k) => allowed.add(k));
    if (types.includes('number') || types.includes('integer')) STRICT_KEYWORDS.number.forEach((k) => allowed.add(k));
    if (types.includes('array')) STRICT_KEYWORDS.array.forEach((k) => allowed.add(k));
    if (types.includes('object')) STRICT_KEYWORDS.object.forEach((k) => allowed.add(k));
    for (const k of Object.keys(s)) if (!allowed.has(k)) out.push(`${at}: keyword ${k} is not supported in strict mode`);
    if (s.format !== undefined && !STRICT_FORMATS.includes(s.format)) out.push(`${at}: format ${s.format}`);
    if (s.enum && types.length && s.enum.some((v) => !types.includes(v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v))) out.push(`${at}: enum value outside its type`);
    if (types.includes('object')) {
      if (s.additionalProperties !== false) out.push(`${at}: additionalProperties must be false`);
      const props = Object.keys(s.properties ?? {});
      const missing = props.filter((p) => !(s.required ?? []).includes(p));
      if (missing.length) out.push(`${at}: not in required (strict mode: every property, optional ones nullable): ${missing.join(', ')}`);
      for (const p of props) check(s.properties![p], `${at}.${p}`);
    }
    if (types.includes('array')) {
      if (!s.items) out.push(`${at}: array without items`);
      else check(s.items, `${at}[]`);
    }
    (s.anyOf ?? []).forEach((b, i) => check(b, `${at}.anyOf[${i}]`));
  };
  check(root, 'top');
  return out;
}

describe('MCP tool input schemas load in every function-calling host', () => {
  it('every tool schema meets OpenAI strict mode and Anthropic tool use, and compiles', () => {
    for (const t of MCP_TOOLS) {
      const schema = toolInputSchema(t.op);
      expect(hostViolations(schema), t.name).toEqual([]);
      expect(() => ajv.compile(schema), t.name).not.toThrow();
    }
  });

  it('the checker refuses what hosts refuse (so the test above can fail)', () => {
    const ok = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    expect(hostViolations(ok)).toEqual([]);
    expect(hostViolations({ oneOf: [ok, ok], properties: {}, type: 'object' }).join()).toMatch(/oneOf/);
    expect(hostViolations({ ...ok, required: [] }).join()).toMatch(/not in required/);
    expect(hostViolations({ ...ok, additionalProperties: undefined }).join()).toMatch(/additionalProperties/);
    expect(hostViolations({ ...ok, properties: { a: { type: 'string', minLength: 1 } } }).join()).toMatch(/minLength/);
    expect(hostViolations({ ...ok, properties: { a: { type: 'string', const: 'x' } } }).join()).toMatch(/const/);
    expect(hostViolations({ ...ok, properties: { a: { type: 'string', format: 'uri' } } }).join()).toMatch(/format uri/);
    expect(hostViolations({ ...ok, type: 'array' }).join()).toMatch(/type must be "object"/);
  });

  it('create_hold is one flat object: hold_scope plus both branches, still checked by the discriminated union at call time', () => {
    const schema = toolInputSchema(tool('create_hold').op);
    expect(schema.properties!.hold_scope).toEqual({ type: 'string', enum: ['candidate', 'window'] });
    expect(Object.keys(schema.properties!)).toEqual(expect.arrayContaining(['candidate', 'window', 'duration_minutes', 'coverage', 'meeting_class', 'idempotency_key']));
    const validate = ajv.compile(schema);
    // what a strict host sends: every field, null where unused
    const nulls = { owner_email: null, pool: null, owner_emails: null, calendar_type: null, ttl_seconds: null, candidate: null, duration_minutes: null, window: null, coverage: null, recurrence: null, min_occurrences: null, idempotency_key: null, time_zone: null };
    const candidate = { ...nulls, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot, idempotency_key: 'k' };
    const window = { ...nulls, meeting_class: 'internal', hold_scope: 'window', window: slot, duration_minutes: 30, coverage: 'all_free' };
    expect(validate(candidate)).toBe(true);
    expect(validate(window)).toBe(true);
    expect(validate({ ...candidate, hold_scope: 'both' })).toBe(false);
    // the REST body is the union branch without the nulls; the same zod schema accepts it, or refuses a branch with missing fields
    const split = splitArguments(tool('create_hold').op, candidate);
    expect(split.body).toEqual({ meeting_class: 'internal', hold_scope: 'candidate', candidate: slot });
    expect(split.idempotencyKey).toBe('k');
    expect(HoldCreateBody.safeParse(split.body).success).toBe(true);
    expect(HoldCreateBody.safeParse(splitArguments(tool('create_hold').op, window).body).success).toBe(true);
    expect(HoldCreateBody.safeParse(splitArguments(tool('create_hold').op, { ...nulls, meeting_class: 'internal', hold_scope: 'candidate' }).body).success).toBe(false);
    expect(HoldCreateBody.safeParse(splitArguments(tool('create_hold').op, { ...candidate, window: slot }).body).success).toBe(false); // a window on a candidate hold is refused, as on REST
  });

  it('flattens path and body (confirm_hold), admits idempotency_key on mutating tools only, and drops the long date-time pattern', () => {
    const schema = toolInputSchema(tool('confirm_hold').op);
    const validate = ajv.compile(schema);
    const nulls = { meeting_class: null, attendees: null, title: null, description: null, video: null, scope: null, idempotency_key: null, time_zone: null };
    expect(validate({ id: 'hold_1', ...slot, ...nulls, idempotency_key: 'k1' })).toBe(true);
    expect(validate({ ...slot, ...nulls })).toBe(false); // id is required
    expect(validate({ id: 'hold_1', ...slot, ...nulls, surprise: 1 })).toBe(false); // closed, as the strict body is
    expect(schema.properties!.start).toEqual({ type: 'string', format: 'date-time' });
    expect(JSON.stringify(MCP_TOOLS.map((t) => toolInputSchema(t.op)))).not.toContain('pattern');
    expect(toolInputSchema(tool('get_hold').op).properties).not.toHaveProperty('idempotency_key');
    expect(toolInputSchema(tool('search_availability').op).properties).not.toHaveProperty('idempotency_key');
  });

  it('splits arguments into path, query and body, dropping the nulls of absent fields', () => {
    expect(splitArguments(tool('confirm_hold').op, { id: 'h1', ...slot, title: null, idempotency_key: 'k' })).toEqual({ params: { id: 'h1' }, query: new URLSearchParams(), body: { ...slot }, idempotencyKey: 'k' });
    const rules = splitArguments(tool('get_schedule_rules').op, { owner_email: 'o@example.com' });
    expect(rules.query.get('owner_email')).toBe('o@example.com');
    expect(rules.body).toBeUndefined();
    const list = splitArguments(tool('list_my_holds').op, { owner_email: null, agent: 'me', limit: null, cursor: null, status: 'active', from: null, to: null });
    expect(list.query.toString()).toBe('agent=me&status=active');
  });
});

describe('tools/list is small and says the common rules once', () => {
  // the JSON-RPC answer to tools/list as server/mcp/server.ts builds it (tests/integration/mcp measures it over HTTP too)
  const listing = () => JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: MCP_TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: toolInputSchema(t.op), annotations: toolAnnotations(t) })) } });

  it('fits its budget (12 KB for 17 tools, 600 bytes per tool since, 300 for the series fields), and every description at most 400 characters', () => {
    expect(TOOLS_LIST_BUDGET_BYTES).toBeLessThanOrEqual(12 * 1024 + (MCP_TOOLS.length - 17) * 600 + 300);
    expect(Buffer.byteLength(listing())).toBeLessThanOrEqual(TOOLS_LIST_BUDGET_BYTES);
    for (const t of MCP_TOOLS) expect(t.description.length, t.name).toBeLessThanOrEqual(400);
  });

  it('the instructions carry the rules every tool shares; no description repeats them', () => {
    for (const rule of ['isError', 'error.code', 'alternatives', 'conflicts', 'next_available', 'permission_denied', 'retry_after_seconds', 'idempotency_key', 'RFC 3339', 'valid_meeting_classes', 'pending_notifications']) {
      expect(MCP_INSTRUCTIONS, rule).toContain(rule);
    }
    for (const t of MCP_TOOLS) expect(t.description, t.name).not.toMatch(/isError|retry_after_seconds|permission_denied/);
  });

  it('fields shared by several tools are explained once, in the instructions, not in each schema', () => {
    for (const name of ['list_my_bookings', 'list_my_holds']) {
      const props = toolInputSchema(tool(name).op).properties!;
      for (const f of ['from', 'to', 'agent', 'limit', 'cursor']) {
        expect(props[f], `${name}.${f}`).toBeDefined();
        expect(props[f].description, `${name}.${f}`).toBeUndefined();
      }
    }
    for (const said of ['from/to', 'agent (`me` or an agent id)', 'limit defaults to 50', 'next_cursor as cursor', "owner_email is an owner's email address"]) expect(MCP_INSTRUCTIONS).toContain(said);
    expect(toolInputSchema(tool('search_availability').op).properties!.owner_email).toEqual({ type: ['string', 'null'] });
  });
});

describe('tool annotations follow what each operation does', () => {
  // What each tool does to the service's state, read off its operation (docs/agents.md "MCP tools").
  const EFFECTS: Record<string, 'read' | 'write' | 'write-idempotent' | 'destroy' | 'destroy-idempotent'> = {
    list_meeting_classes: 'read',
    list_pools: 'read',
    search_availability: 'read', // POST, but only reads
    evaluate_booking: 'read', // POST, a dry run
    get_hold: 'read',
    get_booking: 'read',
    get_booking_reminders: 'read',
    get_schedule_rules: 'read',
  list_time_zones: 'read',
    get_booking_proposal: 'read',
    list_my_bookings: 'read',
    list_my_holds: 'read',
    who_am_i: 'read',
    drain_notifications: 'write', // GET, but marks the items it answers delivered: a second call answers others
    create_booking_proposal: 'write',
    create_hold: 'destroy', // may preempt a lower-priority hold or booking
    confirm_hold: 'destroy', // releases the hold's other windows, may preempt
    create_booking: 'destroy', // may preempt
    cancel_booking: 'destroy-idempotent',
    reschedule_booking: 'destroy', // may preempt
    update_booking: 'write-idempotent', // the same edit again changes nothing
    extend_hold: 'write', // again: a later expiry
    release_hold: 'destroy-idempotent',
    join_waitlist: 'write',
    list_waitlist: 'read',
    get_waitlist_entry: 'read',
    leave_waitlist: 'destroy-idempotent', // leaving twice answers the entry again
  };

  it('every tool is classified, and its annotations match', () => {
    expect(Object.keys(EFFECTS).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    for (const t of MCP_TOOLS) {
      const effect = EFFECTS[t.name];
      const a = toolAnnotations(t);
      expect(operationWrites(t.op), t.name).toBe(effect !== 'read');
      if (effect === 'read') expect(a, t.name).toEqual({ readOnlyHint: true, openWorldHint: false });
      else
        expect(a, t.name).toEqual({
          readOnlyHint: false,
          destructiveHint: effect.startsWith('destroy'),
          idempotentHint: effect.endsWith('idempotent'),
          openWorldHint: false,
        });
    }
  });

  it('drain_notifications is neither read-only nor idempotent', () => {
    expect(toolAnnotations(tool('drain_notifications'))).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });
});

describe('a 429 as a tool result', () => {
  it('points at retry_after_seconds, not at a header the result does not carry', () => {
    const body = withRetryAfter({ error: { code: 'rate_limited', message: 'Rate limit exceeded; retry after the number of seconds in Retry-After' }, pending_notifications: [] }, 7);
    expect(body).toMatchObject({ retry_after_seconds: 7, error: { code: 'rate_limited' } });
    expect((body.error as { message: string }).message).toBe('Rate limit exceeded; retry after the number of seconds in retry_after_seconds (7)');
  });
});
