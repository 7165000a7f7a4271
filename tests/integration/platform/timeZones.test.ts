import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { owners } from '@/db/schema';
import { api, expectEnvelope, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { nextWeekday, ownerIdOf, setupOwner } from '../scheduling/fixtures';

/**
 * A time zone is stored and answered with its IANA spelling, whatever case it
 * was typed in (docs/api.md "Requests and responses"); rows stored before
 * that are read canonical and rewritten by the migration.
 */
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

const rulesOf = (email: string) => api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(email)}`, { key: admin.key });
const storedZone = async (email: string) => {
  const [row] = await (await getDb()).select({ tz: owners.timeZone }).from(owners).where(eq(owners.id, await ownerIdOf(admin, email)));
  return row.tz;
};

describe('time zones keep their IANA spelling', () => {
  it('POST /v1/owners stores and answers `UTC` for `utc`, and a link name in its own spelling', async () => {
    for (const [typed, canonical] of [
      ['utc', 'UTC'],
      ['europe/berlin', 'Europe/Berlin'],
      ['AMERICA/NEW_YORK', 'America/New_York'],
      ['asia/calcutta', 'Asia/Calcutta'],
      ['etc/gmt+5', 'Etc/GMT+5'],
    ]) {
      const email = uniqueEmail('tz');
      const res = await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: typed } });
      expect([res.status, res.body.time_zone], res.text).toEqual([201, canonical]);
      expect(await storedZone(email)).toBe(canonical);
      expect((await rulesOf(email)).body.time_zone).toBe(canonical);
    }
    for (const bad of ['europe/nowhere', '+01:00']) {
      expectEnvelope(await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail('tz'), time_zone: bad } }), 400, 'INVALID_TIME_ZONE');
    }
  });

  it('INVALID_TIME_ZONE names close matches and points to GET /v1/time-zones, which lists the accepted names', async () => {
    const res = await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail('tz'), time_zone: 'Europe/Berln' } });
    const err = expectEnvelope(res, 400, 'INVALID_TIME_ZONE');
    expect(res.body.did_you_mean).toEqual(['Europe/Berlin']);
    expect(err.message).toContain('Europe/Berlin');
    expect(err.message).toContain('GET /v1/time-zones');
    expect(err.details.fields).toEqual([{ path: 'body.time_zone', message: expect.stringContaining('Europe/Berlin') }]);
    const far = await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail('tz'), time_zone: 'Mars/Base' } });
    expect(expectEnvelope(far, 400, 'INVALID_TIME_ZONE').message).toContain('GET /v1/time-zones');
    expect(far.body.did_you_mean).toEqual([]);
    const list = await api('GET', '/v1/time-zones', { key: admin.key });
    expect(list.status, list.text).toBe(200);
    expect(list.body.time_zones).toEqual(expect.arrayContaining(['UTC', 'Europe/Berlin', 'America/New_York']));
    expect(list.body.time_zones).toEqual([...list.body.time_zones].sort());
    // Every listed name is accepted (a sample across the list; the unit test checks each).
    const names: string[] = list.body.time_zones;
    for (const tz of [names[0], names[Math.floor(names.length / 2)], names[names.length - 1]]) {
      const made = await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail('tz'), time_zone: tz } });
      expect([made.status, made.body.time_zone], made.text).toEqual([201, tz]);
    }
    expectEnvelope(await api('GET', '/v1/time-zones'), 401, 'unknown_api_key');
  });

  it('PUT /v1/schedule-rules stores the canonical name; search answers it', async () => {
    const email = await setupOwner(admin);
    const put = await api('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: email, time_zone: 'europe/berlin', working_hours: { mon: [{ start: '09:00', end: '17:00' }] } } });
    expect([put.status, put.body.time_zone], put.text).toEqual([200, 'Europe/Berlin']);
    expect(await storedZone(email)).toBe('Europe/Berlin');
    const day = nextWeekday('mon', 'Europe/Berlin');
    const search = await api('POST', '/v1/availability/search', {
      key: admin.key,
      body: { owner_email: email, meeting_class: 'internal', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('10:00') } },
    });
    expect([search.status, search.body.time_zone], search.text).toEqual([200, 'Europe/Berlin']);
    expect(search.body.slots[0].start).toBe(day.at('09:00'));
  });

  it('a row stored as typed before the fix is answered canonical, and the migration rewrites it', async () => {
    const email = await setupOwner(admin);
    const db = await getDb();
    await db.update(owners).set({ timeZone: 'europe/berlin' }).where(eq(owners.id, await ownerIdOf(admin, email)));
    expect((await rulesOf(email)).body.time_zone).toBe('Europe/Berlin');

    const dir = path.join(process.cwd(), 'db/migrations');
    const file = readdirSync(dir).find((f) => f.endsWith('_canonical_owner_time_zones.sql'));
    expect(file, 'the migration that canonicalises stored zones').toBeDefined();
    for (const statement of readFileSync(path.join(dir, file!), 'utf8').split('--> statement-breakpoint')) {
      if (statement.trim()) await db.execute(sql.raw(statement));
    }
    expect(await storedZone(email)).toBe('Europe/Berlin');
  });
});
