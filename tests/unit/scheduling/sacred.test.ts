import { describe, expect, it } from 'vitest';
import { isSacred } from '@/server/domain/scheduling';
import { H } from './helpers';

const now = 1_800_000_000_000;
const agent = (ageHours: number, externalAccepted = false) => ({
  createdAt: now - ageHours * H,
  externalAccepted,
  source: 'agent' as const,
});

describe('isSacred', () => {
  it.each([
    ['fresh agent booking, 24 h class', agent(1), 24, false],
    ['exactly 24 h old is not yet sacred (age must exceed)', agent(24), 24, false],
    ['24 h + 1 ms old', { ...agent(24), createdAt: now - 24 * H - 1 }, 24, true],
    ['older than a 2 h class', agent(3), 2, true],
    ['0 hours: sacred as soon as made', agent(0), 0, true],
    ['null/undefined hours default to 24', agent(25), null, true],
    ['default 24 h, 23 h old', agent(23), undefined, false],
    ['external attendee accepted', agent(0, true), 24, true],
    ['provider-created', { createdAt: now, externalAccepted: false, source: 'provider' as const }, 24, true],
    ['public booking behaves like an agent one', { createdAt: now - H, externalAccepted: false, source: 'public' as const }, 24, false],
    ['createdAt in the future (clock skew) is not sacred by age', agent(-5), 1, false],
  ])('%s', (_name, booking, hours, expected) => {
    expect(isSacred(booking, hours, now)).toBe(expected);
  });
});
