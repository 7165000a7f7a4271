import { beforeAll, describe, expect, it } from 'vitest';
import { api, newCustomer, type TestCustomer } from '../../helpers/app';
import { OpenApiValidator, OpenApiViolationError, formatViolations } from '../../helpers/openapiValidator';

/**
 * The checker every test's answers go through (tests/helpers/openapiValidator.ts) fails on a
 * departure: real answers of the service, fed with a document whose schema was made wrong on
 * purpose, are reported with the operation, the status, the JSON pointer and what was expected.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is edited field by field
let doc: any;
let admin: TestCustomer;
beforeAll(async () => {
  doc = (await api('GET', '/v1/openapi.json')).body;
  admin = await newCustomer();
});
const copy = () => structuredClone(doc);
const answerOf = (method: string, path: string, res: { status: number; headers: Headers; body: unknown }) => ({ method, path, status: res.status, contentType: res.headers.get('content-type'), body: res.body });

describe('the OpenAPI answer checker', () => {
  it('passes a real answer against the served document', async () => {
    const me = await api('GET', '/v1/agents/me', { key: admin.key });
    expect(me.status).toBe(200);
    expect(new OpenApiValidator(doc).check(answerOf('GET', '/v1/agents/me', me))).toEqual([]);
  });

  it('catches a deliberately wrong schema: a real GET /v1/agents/me answer against agent_id typed integer', async () => {
    const me = await api('GET', '/v1/agents/me', { key: admin.key });
    const wrong = copy();
    const schema = wrong.paths['/v1/agents/me'].get.responses['200'].content['application/json'].schema;
    expect(schema.properties.agent_id).toBeDefined();
    schema.properties.agent_id = { type: 'integer' };
    const violations = new OpenApiValidator(wrong).check(answerOf('GET', '/v1/agents/me', me));
    expect(violations).toEqual([{ operation: 'GET /v1/agents/me (getCurrentAgent)', status: 200, pointer: '/agent_id', message: expect.stringContaining('must be integer') }]);
    expect(formatViolations(violations)).toContain(`GET /v1/agents/me (getCurrentAgent) answered 200: /agent_id: must be integer, got ${JSON.stringify(me.body.agent_id)}`);
    expect(new OpenApiViolationError(violations).message).toContain('/agent_id');
  });

  it('catches a nullable field documented as a string (the audit-log drift of issue 37)', async () => {
    const wrong = copy();
    const me = await api('GET', '/v1/agents/me', { key: admin.key });
    const schema = wrong.paths['/v1/agents/me'].get.responses['200'].content['application/json'].schema;
    schema.properties.agent_id = { type: 'string' };
    const violations = new OpenApiValidator(wrong).check(answerOf('GET', '/v1/agents/me', { ...me, body: { ...me.body, agent_id: null } }));
    expect(violations.map((v) => [v.pointer, v.message.split(',')[0]])).toEqual([['/agent_id', 'must be string']]);
  });

  it('reports an error code the response does not list, and a status the operation does not document', async () => {
    const missing = await api('GET', '/v1/holds/hold_doesnotexist', { key: admin.key });
    expect(missing.status).toBe(404);
    const validator = new OpenApiValidator(doc);
    expect(validator.check(answerOf('GET', '/v1/holds/hold_doesnotexist', missing))).toEqual([]);
    const otherCode = { ...missing.body, error: { ...missing.body.error, code: 'BOOKING_NOT_FOUND_NOWHERE' } };
    expect(validator.check(answerOf('GET', '/v1/holds/x', { ...missing, body: otherCode }))).toEqual([
      { operation: 'GET /v1/holds/{id} (getHold)', status: 404, pointer: '/error/code', message: expect.stringMatching(/^error.code "BOOKING_NOT_FOUND_NOWHERE" is not one the document lists for 404/) },
    ]);
    expect(validator.check(answerOf('GET', '/v1/holds/x', { ...missing, status: 418 }))).toEqual([
      { operation: 'GET /v1/holds/{id} (getHold)', status: 418, pointer: '', message: expect.stringMatching(/^status 418 \(\w+\) is not documented/) },
    ]);
  });

  it('holds unknown paths and methods to the not_found and method_not_allowed envelopes', async () => {
    const validator = new OpenApiValidator(doc);
    const unknown = await api('GET', '/v1/no-such-thing', { key: admin.key });
    expect(unknown.status).toBe(404);
    expect(validator.check(answerOf('GET', '/v1/no-such-thing', unknown))).toEqual([]);
    expect(validator.check(answerOf('GET', '/v1/no-such-thing', { ...unknown, status: 200, body: { ok: true } }))[0].message).toMatch(/no path of the document matches/);
    const put = await api('PUT', '/v1/agents/me', { key: admin.key, body: {} });
    expect(put.status).toBe(405);
    expect(validator.check(answerOf('PUT', '/v1/agents/me', put))).toEqual([]);
    expect(validator.check(answerOf('PUT', '/v1/agents/me', { ...put, body: { error: 'nope' } })).length).toBeGreaterThan(0);
  });
});
