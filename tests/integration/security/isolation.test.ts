import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@/server/domain/ids';
import { operations } from '@/server/http/operations';
import { api, newCustomer, type ApiResponse } from '../../helpers/app';
import { ISOLATION_CASES, ISOLATION_EXTRA } from './cases';
import { buildWorld, ipPool, type World } from './world';

/**
 * Cross-customer isolation (docs/architecture.md "Data", tenancy: a foreign id answers exactly
 * like a missing one, 404 of the resource's kind). Customer A gets one object
 * of every kind; customer B (with a world of its own, so nothing B lacks can
 * explain a 404) probes EVERY id-addressed /v1 operation with A's ids. Each
 * must answer 404, with the same code as a random, never-issued id, and A's
 * objects must be untouched afterwards. The table of which A-id goes in which
 * parameter is ISOLATION_CASES (cases.ts); an operation missing there fails.
 */
const ip = ipPool(12);
const idAddressed = operations.filter((o) => o.path.startsWith('/v1/') && o.path.includes('{'));
const show = (res: ApiResponse) => `${res.status} ${res.text.slice(0, 240)}`;

let a: World;
let b: World;
beforeAll(async () => {
  a = await buildWorld(ip);
  b = await buildWorld(ip, { customer: await newCustomer() });
}, 180_000);

/** The same probe with every UUID-shaped id replaced by a fresh one (the "missing" answer to compare with). */
const missing = (path: string) => path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, () => newId());

describe("customer B's admin addressing customer A's objects", () => {
  it('every id-addressed /v1 operation has an isolation case (a new endpoint must be added)', () => {
    expect(idAddressed.filter((o) => !(o.operationId in ISOLATION_CASES)).map((o) => `${o.operationId} (${o.method} ${o.path})`)).toEqual([]);
    expect(Object.keys(ISOLATION_CASES).filter((id) => !idAddressed.some((o) => o.operationId === id)), 'stale entries').toEqual([]);
    expect(idAddressed.length).toBeGreaterThanOrEqual(20);
  });

  it('A itself reaches every probed object (control: the ids are live)', async () => {
    for (const path of [`/v1/holds/${a.holdId}`, `/v1/bookings/${a.bookingId}`, `/v1/public-scheduling/links/${a.linkId}`, `/v1/public-scheduling/links/${a.linkId}/meeting-types/${a.slug}`]) {
      const res = await api('GET', path, { key: a.admin.key, ip: ip() });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    expect(a.proposalId, 'POST /v1/booking-proposals did not answer 201 while building the world').not.toBeNull();
  });

  it('answers 404 (never 403 or 2xx) on every id-addressed operation, exactly as for a never-issued id', async () => {
    const failures: string[] = [];
    const ordered = [...idAddressed].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
    for (const op of ordered) {
      const probe = ISOLATION_CASES[op.operationId]?.(a);
      if (!probe) continue; // reported by the first test
      const opts = (path: string) => [op.method, path, { key: b.admin.key, ip: ip(), ...(op.method === 'GET' ? {} : { body: probe.body ?? {} }) }] as const;
      const foreign = await api(...opts(probe.path));
      const unknown = await api(...opts(missing(probe.path)));
      if (foreign.status !== 404) failures.push(`${op.operationId} ${op.method} ${probe.path}: ${show(foreign)}`);
      else if (foreign.body?.error?.code !== unknown.body?.error?.code || unknown.status !== 404) {
        failures.push(`${op.operationId}: foreign id answers ${foreign.body?.error?.code}, a missing id ${unknown.status} ${unknown.body?.error?.code}`);
      }
    }
    for (const [name, build] of Object.entries(ISOLATION_EXTRA)) {
      const probe = build(a);
      const res = await api(probe.method, probe.path, { key: b.admin.key, ip: ip(), ...(probe.body ? { body: probe.body } : {}) });
      if (res.status !== 404) failures.push(`${name} ${probe.method} ${probe.path}: ${show(res)}`);
    }
    expect(failures).toEqual([]);
  });

  it("left A's objects untouched", async () => {
    const get = (path: string) => api('GET', path, { key: a.admin.key, ip: ip() });
    expect((await get(`/v1/holds/${a.holdId}`)).body.status).toBe('active');
    expect((await get(`/v1/bookings/${a.bookingId}`)).body.status).toBe('confirmed');
    const link = await get(`/v1/public-scheduling/links/${a.linkId}`);
    expect(link.body.title).toBe('World link');
    expect((await get(`/v1/public-scheduling/links/${a.linkId}/meeting-types/${a.slug}`)).body.title).toBe('Intro');
    const domains = await get('/v1/public-scheduling/domains');
    expect(domains.body.domains.map((d: { domain_id: string }) => d.domain_id)).toContain(a.domainId);
    const audiences = await get('/v1/public-scheduling/audiences');
    expect(audiences.body.audiences.find((x: { audience_id: string }) => x.audience_id === a.audienceId)?.members.length).toBe(1);
    const allocations = await get(`/v1/public-scheduling/allocations?link_id=${a.linkId}`);
    expect(allocations.body.allocations.map((x: { allocation_id: string }) => x.allocation_id)).toEqual([a.allocationId]);
    // the victim agent is enabled and its key works; the credential still identifies its requester
    expect((await api('GET', '/v1/notifications', { key: a.victimKey, ip: ip() })).status).toBe(200);
    const types = await api('GET', `/public/schedules/${a.alias}`, { key: a.credential, ip: ip() });
    expect(types.status, types.text).toBe(200);
  });
});
