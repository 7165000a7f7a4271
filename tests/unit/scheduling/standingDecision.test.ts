import { describe, expect, it } from 'vitest';
import { holdDecisionStands, type StandingFacts } from '@/server/domain/claims/standingDecision';

/** docs/arbitration.md "Confirm: when the hold's decision stands": the pure rule, input by input. */
const start = new Date('2030-01-07T09:00:00Z');
const end = new Date('2030-01-07T10:00:00Z');
const hold = {
  agentId: 'agent-1',
  meetingClassId: 'class-1',
  startAt: start,
  endAt: end,
  holdScope: 'candidate' as const,
  durationMinutes: null,
  groupId: null,
  decidedRulesVersion: 3,
  decidedClassVersion: 1,
  decidedMirrorVersion: 7,
};
const facts: StandingFacts = { owner: { rulesVersion: 3, mirrorVersion: 7 }, meetingClass: { id: 'class-1', version: 1 }, agentId: 'agent-1', start, end, now: new Date('2030-01-07T08:00:00Z') };

describe('holdDecisionStands', () => {
  it('stands when nothing changed, up to the very start of the slot', () => {
    expect(holdDecisionStands(hold, facts)).toBe(true);
    expect(holdDecisionStands(hold, { ...facts, now: start })).toBe(true);
    expect(holdDecisionStands({ ...hold, holdScope: 'window', durationMinutes: 60 }, facts)).toBe(true);
  });

  it.each([
    ['rules changed', hold, { ...facts, owner: { rulesVersion: 4, mirrorVersion: 7 } }],
    ['provider mirror changed', hold, { ...facts, owner: { rulesVersion: 3, mirrorVersion: 8 } }],
    ['class changed', hold, { ...facts, meetingClass: { id: 'class-1', version: 2 } }],
    ['another class named', hold, { ...facts, meetingClass: { id: 'class-2', version: 1 } }],
    ['another agent', hold, { ...facts, agentId: 'agent-2' }],
    ['the start has passed', hold, { ...facts, now: new Date(start.getTime() + 1) }],
    ['another slot', hold, { ...facts, start: new Date(start.getTime() + 15 * 60_000), end: new Date(end.getTime() + 15 * 60_000) }],
    ['a slot inside a longer held window', { ...hold, holdScope: 'window' as const, durationMinutes: 30 }, { ...facts, end: new Date(start.getTime() + 30 * 60_000) }],
    ['a window hold whose window is longer than its duration', { ...hold, holdScope: 'window' as const, durationMinutes: 30 }, facts],
    ['a group hold', { ...hold, groupId: 'group-1' }, facts],
    ['no stamp', { ...hold, decidedRulesVersion: null }, facts],
    ['no class stamp', { ...hold, decidedClassVersion: null }, facts],
    ['no mirror stamp', { ...hold, decidedMirrorVersion: null }, facts],
  ] as const)('arbitrates again: %s', (_what, h, f) => {
    expect(holdDecisionStands(h, f)).toBe(false);
  });
});
