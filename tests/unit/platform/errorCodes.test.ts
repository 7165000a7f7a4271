import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@/db/schema';
import { ERROR_CODES, ERROR_STATUS, catalogueEntry, permissionDeniedCode, statusForCode } from '@/server/domain/errorCodes';
import { DomainError, invalidField } from '@/server/domain/errors';
import { errorBody } from '@/server/http/envelope';
import { errorCodesOf } from '@/server/http/openapi';
import { defineOperation, type AnyOperation } from '@/server/http/operation';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('error code catalogue (server/domain/errorCodes.ts)', () => {
  it('gives every code a status and a description, and the status table is read from it', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.description.length, code).toBeGreaterThan(10);
      expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(entry.status);
      expect(statusForCode(code)).toBe(entry.status);
    }
  });

  it('maps permission_denied:<perm> through its prefix and unknown codes to 500', () => {
    for (const p of PERMISSIONS) expect(statusForCode(permissionDeniedCode(p))).toBe(403);
    expect(catalogueEntry('permission_denied:preempt')).toBe(ERROR_CODES.permission_denied);
    expect(statusForCode('NO_SUCH_CODE')).toBe(500);
    expect(statusForCode('toString')).toBe(500); // no prototype keys
  });

  it('domain errors name domain fields, never request paths (body.x, query.x)', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, 'server/domain'))) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!/^\s*(\*|\/\/)/.test(line) && /[`'"](body|query|params|path)\.(\$\{|[a-z_])/.test(line)) offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('the REST envelope maps domain fields to request paths, and a derived message with them', () => {
    const locate = (f: string) => [`body.${f}`];
    expect(errorBody(invalidField('requested_window', 'required'), locate).error).toEqual({
      code: 'invalid_request',
      message: 'Invalid body.requested_window: required',
      details: { fields: [{ path: 'body.requested_window', message: 'required' }] },
    });
    expect(errorBody(invalidField('end', 'must be after start', 'end must be after start'), locate).error).toEqual({
      code: 'invalid_request',
      message: 'end must be after start',
      details: { fields: [{ path: 'body.end', message: 'must be after start' }] },
    });
    // A field an operation looks for in two places: each place named, in the path list and the message.
    expect(errorBody(invalidField('owner_email', 'Required'), () => ['query.owner_email', 'body.owner_email']).error).toEqual({
      code: 'invalid_request',
      message: 'Invalid query.owner_email or body.owner_email: Required',
      details: { fields: [{ path: 'query.owner_email', message: 'Required' }, { path: 'body.owner_email', message: 'Required' }] },
    });
    // errors without fields pass through unchanged
    expect(errorBody(new DomainError('PAST_TIME', 'past', { extra: { x: 1 } }), locate)).toEqual({ error: { code: 'PAST_TIME', message: 'past' }, x: 1 });
  });

  it('lists per operation the permission codes it can answer: its permission, the ones it names, or all', () => {
    const op = (permission: 'create_holds' | undefined, errors: AnyOperation['errors']) =>
      defineOperation({ operationId: 'x', method: 'GET', path: '/x', summary: 'x', tags: [], auth: 'api_key', permission, success: { status: 200, description: 'x' }, errors, handler: async () => ({ body: null }) }) as AnyOperation;
    const perms = (o: AnyOperation) => errorCodesOf(o).filter((c) => c.startsWith('permission_denied'));
    expect(perms(op(undefined, []))).toEqual([]);
    expect(perms(op('create_holds', []))).toEqual(['permission_denied:create_holds']);
    expect(perms(op('create_holds', ['permission_denied:read_availability', 'HOLD_NOT_FOUND']))).toEqual(['permission_denied:create_holds', 'permission_denied:read_availability']);
    expect(perms(op(undefined, ['permission_denied'])).sort()).toEqual(PERMISSIONS.map((p) => `permission_denied:${p}`).sort());
    expect(errorCodesOf(op(undefined, ['HOLD_NOT_FOUND']))).toEqual(expect.arrayContaining(['unknown_api_key', 'rate_limited', 'HOLD_NOT_FOUND']));
  });
});
