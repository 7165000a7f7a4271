import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from './fixtures';

/**
 * docs/reliability.md "Limits on work per request": what a hard-block RRULE may say, so that the
 * work of every decision for its owner depends on the queried window only.
 */
let admin: TestCustomer;
let owner: string;
const mon = nextWeekday('mon', 'UTC');

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'UTC' });
});

const fieldsOf = (err: { details?: { fields?: { path: string }[] } }) => (err.details?.fields ?? []).map((f) => f.path);

describe('what a hard-block RRULE may say', () => {
  const put = (hardBlocks: unknown[]) =>
    call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: owner, working_hours: null, hard_blocks: hardBlocks } });
  const monthly = (rrule: string, dtstart = '2026-01-01T09:00') => ({ rrule, dtstart, duration_minutes: 30 });

  it('refuses the pathological rule of the attack, naming the field', async () => {
    const attack = monthly('FREQ=MONTHLY;COUNT=999999999;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,-1,-2,-3', '0001-01-01T00:00');
    const err = expectEnvelope(await put(Array.from({ length: 20 }, () => attack)), 400, 'INVALID_SCHEDULE_RULES');
    expect(fieldsOf(err)).toEqual(expect.arrayContaining(['hard_blocks[0].dtstart', 'hard_blocks[0].rrule', 'hard_blocks[19].dtstart']));
  });

  it('each bound on its own: DTSTART before 1900 or after 2099, COUNT, BYDAY and BYMONTHDAY values', async () => {
    const cases: [unknown, string, RegExp][] = [
      [monthly('FREQ=MONTHLY', '1899-12-31T23:59'), 'hard_blocks[0].dtstart', /1900/],
      [monthly('FREQ=MONTHLY', '2100-01-01T00:00'), 'hard_blocks[0].dtstart', /2099/],
      [monthly('FREQ=DAILY;COUNT=10001'), 'hard_blocks[0].rrule', /COUNT/],
      [monthly('FREQ=MONTHLY;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11'), 'hard_blocks[0].rrule', /BYMONTHDAY/],
      [monthly('FREQ=MONTHLY;BYDAY=1MO,2MO,3MO,4MO,5MO,1TU,2TU,3TU,4TU,5TU,1WE'), 'hard_blocks[0].rrule', /BYDAY/],
    ];
    for (const [block, field, message] of cases) {
      const err = expectEnvelope(await put([block]), 400, 'INVALID_SCHEDULE_RULES');
      expect(fieldsOf(err), JSON.stringify(block)).toEqual([field]);
      expect(err.message).toMatch(message);
    }
  });

  it('accepts the largest allowed rule, and COUNT still ends it where it should', async () => {
    const ok = await put([monthly('FREQ=MONTHLY;COUNT=10000;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10', '1900-01-01T00:00')]);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.hard_blocks).toEqual([monthly('FREQ=MONTHLY;COUNT=10000;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10', '1900-01-01T00:00')]);
    // 10 days a month since 1900: the 10,000th occurrence falls in 1983, so today nothing is blocked.
    const evaluated = await call('POST', '/v1/arbitration/evaluate', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', start: mon.at('09:00'), end: mon.at('09:30') },
    });
    expect(evaluated.body.outcome, evaluated.text).toBe('accept');
    // COUNT=2 on the 1st of each month from the 1st of Monday's month: the next month's 1st is blocked, the one after is not.
    const first = mon.date.with({ day: 1 });
    const blockDay = first.add({ months: 1 });
    const two = await put([monthly('FREQ=MONTHLY;COUNT=2;BYMONTHDAY=1', `${first.toString()}T00:00`)]);
    expect(two.status, two.text).toBe(200);
    const at = `${blockDay.toString()}T00:10:00Z`;
    const evalAt = await call('POST', '/v1/arbitration/evaluate', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: at, end: `${blockDay.toString()}T00:20:00Z` } });
    expect(evalAt.body.outcome, evalAt.text).not.toBe('accept');
    const third = `${blockDay.add({ months: 1 }).toString()}T00:10:00Z`;
    const evalThird = await call('POST', '/v1/arbitration/evaluate', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: third, end: `${blockDay.add({ months: 1 }).toString()}T00:20:00Z` } });
    expect(evalThird.body.outcome, evalThird.text).toBe('accept');
  });

  it('an owner has at most 100 hard blocks', async () => {
    const weekly = { days: ['mon'], start: '12:00', end: '13:00' };
    const err = expectEnvelope(await put(Array.from({ length: 101 }, () => weekly)), 400, 'invalid_request');
    expect(fieldsOf(err)).toEqual(['body.hard_blocks']);
  });
});
