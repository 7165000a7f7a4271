import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { MCP_TOOLS, splitArguments, toolInputSchema } from '@/server/mcp/tools';

/** The tools' input schemas are the operations' zod schemas, flattened; arguments split back as REST expects them. */
const ajv = new Ajv({ strict: false });
addFormats(ajv);
const tool = (name: string) => MCP_TOOLS.find((t) => t.name === name)!;
const slot = { start: '2030-01-07T09:00:00Z', end: '2030-01-07T09:30:00Z' };

describe('MCP tool input schemas', () => {
  it('every tool has an object schema and a description that says how to act on a refusal', () => {
    for (const t of MCP_TOOLS) {
      const schema = toolInputSchema(t.op);
      expect(schema.type, t.name).toBe('object');
      expect(() => ajv.compile(schema), t.name).not.toThrow();
      expect(t.description, t.name).toMatch(/isError/);
    }
  });

  it('flattens path and body (confirm_hold) and admits idempotency_key on mutating tools only', () => {
    const validate = ajv.compile(toolInputSchema(tool('confirm_hold').op));
    expect(validate({ id: 'hold_1', ...slot, idempotency_key: 'k1' })).toBe(true);
    expect(validate({ ...slot })).toBe(false); // id is required
    expect(validate({ id: 'hold_1', ...slot, surprise: 1 })).toBe(false); // closed, as the strict body is
    expect(toolInputSchema(tool('get_hold').op).properties).not.toHaveProperty('idempotency_key');
    expect(toolInputSchema(tool('search_availability').op).properties).not.toHaveProperty('idempotency_key');
  });

  it('keeps a union body (create_hold) as one object schema whose branches admit idempotency_key', () => {
    const validate = ajv.compile(toolInputSchema(tool('create_hold').op));
    expect(validate({ owner_email: 'o@example.com', meeting_class: 'internal', hold_scope: 'candidate', candidate: slot, idempotency_key: 'k' })).toBe(true);
    expect(validate({ owner_email: 'o@example.com', meeting_class: 'internal', hold_scope: 'window', window: slot, duration_minutes: 30 })).toBe(true);
    expect(validate({ owner_email: 'o@example.com', meeting_class: 'internal', hold_scope: 'candidate' })).toBe(false);
  });

  it('splits arguments into path, query and body', () => {
    expect(splitArguments(tool('confirm_hold').op, { id: 'h1', ...slot, idempotency_key: 'k' })).toEqual({ params: { id: 'h1' }, query: new URLSearchParams(), body: { ...slot }, idempotencyKey: 'k' });
    const rules = splitArguments(tool('get_schedule_rules').op, { owner_email: 'o@example.com' });
    expect(rules.query.get('owner_email')).toBe('o@example.com');
    expect(rules.body).toBeUndefined();
  });
});
