import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '@/db/schema';
import { AUDIT_ACTION_WORDS, auditWords, valueWords } from '@/server/domain/audit/words';

describe('the audit log in words (server/domain/audit/words.ts)', () => {
  it('names every action in words, each differently', () => {
    const words = AUDIT_ACTIONS.map((a) => AUDIT_ACTION_WORDS[a]);
    expect(words.every((w) => w && !w.includes('.') && !w.includes('_'))).toBe(true);
    expect(new Set(words).size).toBe(AUDIT_ACTIONS.length);
  });

  it('a refusal says what was tried, an acceptance what happened', () => {
    expect(auditWords({ action: 'booking.create', outcome: 'reject', details: null }).title).toBe('Book a meeting');
    expect(auditWords({ action: 'booking.create', outcome: 'counter_propose', details: null }).title).toBe('Book a meeting');
    expect(auditWords({ action: 'booking.create', outcome: 'accept', details: null }).title).toBe('Meeting booked');
    expect(auditWords({ action: 'request.denied', outcome: 'denied', details: null }).title).toBe(AUDIT_ACTION_WORDS['request.denied']);
  });

  it('a move: its old and new time, not as a change of fields', () => {
    const from = { start: '2027-01-04T15:00:00.000Z', end: '2027-01-04T15:30:00.000Z' };
    const to = { start: '2027-01-05T16:00:00.000Z', end: '2027-01-05T16:30:00.000Z' };
    expect(auditWords({ action: 'booking.reschedule', details: { from, to } })).toEqual({ title: 'Meeting moved', subject: null, changes: [], moved: { from, to } });
  });

  it.each([
    ['public_meeting_type.update', { slug: 'intro', title: 'Intro call' }, '"Intro call" (intro)'],
    ['public_link.create', { alias: 'dana', title: 'Dana' }, '"Dana" /dana'],
    ['public_link.delete', { alias: 'dana', title: null }, '/dana'],
    ['pool.delete', { name: 'Sales' }, 'Sales'],
    ['api_key.mint', { prefix: 'sk_live_ab12', name: 'ci' }, 'key sk_live_ab12…'],
    ['domain.verify', { domain: 'book.example.com' }, 'book.example.com'],
    ['booking.create', {}, null],
  ] as const)('%s is about %s', (action, details, subject) => {
    expect(auditWords({ action, details }).subject).toBe(subject);
  });

  it("an update lists only what changed, old beside new, in words, never its ids", () => {
    const before = { pool_id: 'p1', name: 'Sales', members: [{ owner_email: 'a@x.test', weight: 1 }] };
    const after = { pool_id: 'p1', name: 'Sales EU', members: [{ owner_email: 'a@x.test', weight: 1 }, { owner_email: 'b@x.test', weight: 2 }] };
    expect(auditWords({ action: 'pool.update', details: { ...after, before } }).changes).toEqual([
      { field: 'name', before: 'Sales', after: 'Sales EU' },
      { field: 'members', before: 'a@x.test (weight 1)', after: 'a@x.test (weight 1), b@x.test (weight 2)' },
    ]);
    const type = { slug: 'intro', title: 'Intro', buffer_before_minutes: 0, book_instantly: false, location: null };
    expect(auditWords({ action: 'public_meeting_type.update', details: { ...type, buffer_before_minutes: 10, book_instantly: true, location: 'Room 4', before: type } }).changes).toEqual([
      { field: 'buffer before (minutes)', before: '0', after: '10' },
      { field: 'book instantly', before: 'no', after: 'yes' },
      { field: 'location', before: null, after: 'Room 4' },
    ]);
  });

  it('a booking edit: the new title, people added and removed; a hold extended: both expiries as instants', () => {
    expect(auditWords({ action: 'booking.update', details: { title: 'Board prep', attendees: { added: [{ email: 'c@x.test', name: 'C' }], removed: ['d@x.test'] } } }).changes).toEqual([
      { field: 'title', before: null, after: 'Board prep' },
      { field: 'attendees added', before: null, after: 'c@x.test' },
      { field: 'attendees removed', before: 'd@x.test', after: null },
    ]);
    expect(auditWords({ action: 'hold.extend', details: { expires_at_before: '2027-01-04T15:05:00.000Z', expires_at: '2027-01-04T15:20:00.000Z' } }).changes).toEqual([
      { field: 'expires', before: '2027-01-04T15:05:00.000Z', after: '2027-01-04T15:20:00.000Z', instant: true },
    ]);
  });

  it.each([
    [true, 'yes'],
    [false, 'no'],
    [null, null],
    ['', null],
    [[], null],
    [15, '15'],
    [['a', 'b'], 'a, b'],
  ] as const)('valueWords(%j) = %j', (v, w) => {
    expect(valueWords(v)).toBe(w);
  });
});
