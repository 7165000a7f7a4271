import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { closeMailer } from '@/server/domain/email';
import { newCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { expectNoLeaks, freshIp, meetingType, pub, publicOwner, structured, useSmtp, type PublicSetup } from './fixtures';
import { onDate } from '../scheduling/fixtures';

/**
 * *_local on /public answers (docs/public-scheduling.md "Times"): suggested times carry the
 * host's wall clock with its offset; every /public date-time input takes any RFC 3339 offset.
 * The responses go through the leak scan (expectNoLeaks), which allows exactly these fields.
 */
let smtp: TestSmtp;
let s: PublicSetup;
let slug: string;
const TZ = 'Europe/Berlin';
// The week the clocks go back in Berlin (Sunday 2027-10-31): Friday is CEST (+02:00), Monday CET (+01:00).
const fri = onDate('2027-10-29', TZ);
const mon = onDate('2027-11-01', TZ);

beforeAll(async () => {
  smtp = await useSmtp();
  const admin = await newCustomer();
  s = await publicOwner(admin, { timeZone: TZ });
  slug = await meetingType(s, { slug: 'chat', title: 'Chat', duration_minutes: [30] });
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

const suggested = (from: string, to: string) => pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);

/** The instant as the host's wall clock with its offset, computed independently of the server. */
function hostLocal(iso: string): string {
  return Temporal.Instant.from(iso).toZonedDateTimeISO(TZ).toString({ timeZoneName: 'never', smallestUnit: 'second' });
}

describe('public suggested times', () => {
  it("with time_zone, also carry start_caller/end_caller on the requester's clock (docs/api.md \"The caller's time zone\"); an unknown zone is refused", async () => {
    const res = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=${encodeURIComponent(mon.at('09:00'))}&to=${encodeURIComponent(mon.at('10:00'))}&time_zone=America/New_York`);
    expect(res.status, res.text).toBe(200);
    // Monday 2027-11-01: Berlin is back on +01:00, New York still on -04:00 until 2027-11-07.
    expect(res.body.suggested_times[0]).toEqual({
      start: mon.at('09:00'),
      end: mon.at('09:30'),
      start_local: '2027-11-01T09:00:00+01:00',
      start_caller: '2027-11-01T04:00:00-04:00',
      end_local: '2027-11-01T09:30:00+01:00',
      end_caller: '2027-11-01T04:30:00-04:00',
    });
    const bad = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?time_zone=Europe/Berln`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'INVALID_TIME_ZONE' }, did_you_mean: ['Europe/Berlin'] });
  });

  it('carry start_local/end_local in the host zone with its offset, across a DST change', async () => {
    for (const [day, offset] of [
      [fri, '+02:00'],
      [mon, '+01:00'],
    ] as const) {
      const res = await suggested(day.at('09:00'), day.at('11:00'));
      expect(res.status, res.text).toBe(200);
      expect(res.body.suggested_times.length).toBeGreaterThan(0);
      expect(res.body.suggested_times[0]).toEqual({
        start: day.at('09:00'),
        end: day.at('09:30'),
        start_local: `${day.date}T09:00:00${offset}`,
        end_local: `${day.date}T09:30:00${offset}`,
      });
      for (const t of res.body.suggested_times) {
        expect(t.start_local).toBe(hostLocal(t.start));
        expect(t.end_local).toBe(hostLocal(t.end));
      }
    }
  });

  it('from/to with an offset answer exactly as their UTC twins', async () => {
    const utc = await suggested(mon.at('09:00'), mon.at('12:00'));
    const local = await suggested('2027-11-01T09:00:00+01:00', '2027-11-01T07:00:00-04:00');
    expect(local.status, local.text).toBe(200);
    expect(local.body).toEqual(utc.body);
    const bad = await suggested('2027-11-01T09:00:00', '2027-11-01T12:00:00');
    expect(bad.status).toBe(400);
    expect(bad.body).not.toHaveProperty('conflicts');
  });

  it('a requested_window sent with an offset is the suggested time it denotes; refusals carry no conflicts', async () => {
    const first = (await suggested(mon.at('10:00'), mon.at('11:00'))).body.suggested_times[0];
    const asLocal = { start: first.start_local, end: first.end_local };
    const ok = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip: freshIp(), body: structured(slug, asLocal) });
    expect(ok.status, ok.text).toBe(201);
    // sent back verbatim, local twins and all
    const verbatim = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip: freshIp(), body: structured(slug, first) });
    expect(verbatim.status, verbatim.text).toBe(201);
    const lunchtimeOff = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, {
      ip: freshIp(),
      body: structured(slug, { start: '2027-11-01T07:00:00+01:00', end: '2027-11-01T07:30:00+01:00' }),
    });
    expect(lunchtimeOff.status).toBe(409);
    expect(lunchtimeOff.body.error.code).toBe('time_unavailable');
    expect(lunchtimeOff.body).not.toHaveProperty('conflicts');
    expect(lunchtimeOff.body).not.toHaveProperty('alternatives');
  });
});
