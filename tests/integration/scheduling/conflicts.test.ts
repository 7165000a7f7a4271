import { beforeAll, describe, expect, it } from 'vitest';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, directAgents, nextWeekday, setupOwner } from './fixtures';

/**
 * conflicts[] in arbitration refusals (docs/api.md "Arbitration, counter-proposals and
 * alternatives"): what the requested slot collided with, never another agent's private details.
 */
let admin: TestCustomer;
let owner: string;
let agentB: string;
const TZ = 'Europe/Berlin';
const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri'];
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, {
    timeZone: TZ,
    hardBlocks: [
      { days: weekdays, start: '12:00', end: '13:00', label: 'Lunch' },
      { days: ['tue'], start: '16:00', end: '17:00', label: 'School run' },
    ],
  });
  [{ key: agentB }] = await directAgents(admin, 1, ['read_availability', 'create_holds', 'create_bookings']);
});

const book = (key: string, meetingClass: string, slot: { start: string; end: string }, extra: Record<string, unknown> = {}) =>
  call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: meetingClass, ...slot, ...extra } });

describe('conflicts[] in refusals', () => {
  it('a refusal over the lunch hard block names the block by its label (booking, candidate hold, evaluate)', async () => {
    const day = nextWeekday('mon', TZ);
    const slot = { start: day.at('12:15'), end: day.at('12:45') };
    const refused = await book(agentB, 'internal', slot);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('ARBITRATION_REJECTED');
    expect(refused.body.conflicts).toEqual([{ kind: 'hard_block', label: 'Lunch' }]);
    const hold = await call('POST', '/v1/holds', { key: agentB, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
    expect(hold.status, hold.text).toBe(409);
    expect(hold.body.conflicts).toEqual([{ kind: 'hard_block', label: 'Lunch' }]);
    const evaluated = await call('POST', '/v1/arbitration/evaluate', { key: agentB, body: { owner_email: owner, meeting_class: 'internal', ...slot } });
    expect(evaluated.status, evaluated.text).toBe(200);
    expect(evaluated.body).toMatchObject({ outcome: 'counter_propose', conflicts: [{ kind: 'hard_block', label: 'Lunch' }] });
  });

  it('a slot across two blocks names both; working hours are a reason, not a conflict', async () => {
    const tue = nextWeekday('tue', TZ);
    // 12:30-16:30 on a Tuesday touches Lunch and the school run
    const both = await book(agentB, 'internal', { start: tue.at('12:30'), end: tue.at('16:30') });
    expect(both.status, both.text).toBe(409);
    expect(both.body.conflicts).toEqual([
      { kind: 'hard_block', label: 'Lunch' },
      { kind: 'hard_block', label: 'School run' },
    ]);
    const early = await book(agentB, 'internal', { start: tue.at('07:00'), end: tue.at('07:30') });
    expect(early.status, early.text).toBe(409);
    expect(early.body.alternatives[0].reason_code).toBe('working_hours');
    expect(early.body.conflicts).toEqual([]);
  });

  it("a refusal over a higher-priority booking names its class, priority and sacredness, nothing private", async () => {
    const day = nextWeekday('wed', TZ);
    const taken = await book(admin.key, 'external', { start: day.at('10:00'), end: day.at('11:00') }, {
      title: 'Confidential board meeting',
      description: 'acquisition talks',
      attendees: [{ email: 'ceo@partner.example', name: 'Pat CEO' }],
    });
    expect(taken.status, taken.text).toBe(201);
    const refused = await book(agentB, 'internal', { start: day.at('10:30'), end: day.at('11:00') });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.conflicts).toEqual([{ kind: 'booking', meeting_class: 'external', priority: 50, sacred: false }]);
    for (const secret of [taken.body.booking_id, 'Confidential', 'acquisition', 'ceo@partner.example', 'Pat CEO', admin.agentId]) {
      expect(refused.text).not.toContain(secret);
    }
  });

  it("a refusal over another agent's hold says only {kind: hold}", async () => {
    const day = nextWeekday('thu', TZ);
    const slot = { start: day.at('14:00'), end: day.at('14:30') };
    const held = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
    expect(held.status, held.text).toBe(200);
    const refused = await book(agentB, 'focus', slot);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.conflicts).toEqual([{ kind: 'hold' }]);
    expect(refused.text).not.toContain(held.body.hold_id);
    expect(refused.text).not.toContain(admin.agentId);
  });
});
