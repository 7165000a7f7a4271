import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '@/server/domain/errorCodes';
import { operations } from '@/server/http/operations';
import { api, type ApiResponse } from '../../helpers/app';
import { directAgents } from '../scheduling/fixtures';
import { ALL_PERMISSIONS, buildWorld, ipPool, type World } from './world';

/**
 * Authentication on EVERY API-key operation (from `operations`): each bad
 * credential answers 401 with its lowercase code (docs/api.md "3. Errors"),
 * `WWW-Authenticate: Bearer ...`, and the error envelope with an empty
 * pending_notifications. Also: every 401/403 code of the error table is lowercase.
 */
const ip = ipPool(14);
const apiKeyOps = operations.filter((o) => o.auth === 'api_key');
const placeholder = (path: string) => path.replace(/\{[^}]+\}/g, 'x');
let w: World;
let credentials: { name: string; authorization: string | null; code: string }[];

beforeAll(async () => {
  w = await buildWorld(ip);
  const [revoked, disabled] = await directAgents(w.admin, 2, ALL_PERMISSIONS);
  const second = await api('POST', `/v1/agents/${revoked.agentId}/keys`, { key: w.admin.key, body: {}, ip: ip() });
  expect((await api('DELETE', `/v1/agents/${revoked.agentId}/keys/${second.body.key_id}`, { key: w.admin.key, ip: ip() })).status).toBe(200);
  expect((await api('PATCH', `/v1/agents/${disabled.agentId}`, { key: w.admin.key, body: { disabled: true }, ip: ip() })).status).toBe(200);
  credentials = [
    { name: 'no Authorization', authorization: null, code: 'unknown_api_key' },
    { name: 'Basic scheme', authorization: 'Basic dXNlcjpwYXNz', code: 'unknown_api_key' },
    { name: 'Bearer without token', authorization: 'Bearer', code: 'unknown_api_key' },
    { name: 'unknown ak_ key', authorization: `Bearer ak_${'x'.repeat(43)}`, code: 'unknown_api_key' },
    { name: 'rc_ requester credential', authorization: `Bearer ${w.credential}`, code: 'unknown_api_key' },
    { name: 'revoked key', authorization: `Bearer ${second.body.api_key}`, code: 'api_key_revoked' },
    { name: 'key of a disabled agent', authorization: `Bearer ${disabled.key}`, code: 'agent_disabled' },
  ];
}, 120_000);

function problemsOf(res: ApiResponse, code: string): string[] {
  const p: string[] = [];
  if (res.status !== 401) p.push(`status ${res.status}`);
  if (res.body?.error?.code !== code) p.push(`code ${res.body?.error?.code} (want ${code})`);
  if (typeof res.body?.error?.code === 'string' && res.body.error.code !== res.body.error.code.toLowerCase()) p.push('code not lowercase');
  if (typeof res.body?.error?.message !== 'string') p.push('no error.message');
  if (!Array.isArray(res.body?.pending_notifications) || res.body.pending_notifications.length) p.push('pending_notifications not []');
  if (!/^Bearer\b/.test(res.headers.get('www-authenticate') ?? '')) p.push(`WWW-Authenticate "${res.headers.get('www-authenticate')}"`);
  return p;
}

describe('authentication on every API-key operation', () => {
  it('answers each bad credential with 401, its lowercase code and WWW-Authenticate: Bearer', async () => {
    const failures: string[] = [];
    for (const op of apiKeyOps) {
      for (const c of credentials) {
        const res = await api(op.method, placeholder(op.path), {
          ip: ip(),
          headers: c.authorization ? { authorization: c.authorization } : {},
          ...(op.method === 'GET' ? {} : { body: {} }),
        });
        const problems = problemsOf(res, c.code);
        if (problems.length) failures.push(`${op.operationId} with ${c.name}: ${problems.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
    expect(apiKeyOps.length).toBeGreaterThanOrEqual(40);
  });

  it('every 401 and 403 code of the error table is lowercase (docs/api.md: RFC 6750 style)', () => {
    const codes = Object.entries(ERROR_STATUS).filter(([, status]) => status === 401 || status === 403).map(([code]) => code);
    expect(codes.length).toBeGreaterThanOrEqual(5);
    expect(codes.filter((c) => c !== c.toLowerCase())).toEqual([]);
  });
});
