import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { bookingProposals, calendars } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { ProviderAuthError, ProviderUnavailableError, registerProvider, type CalendarProvider } from '@/server/domain/calendars/provider';
import { syncCalendar } from '@/server/domain/calendars/sync';
import { newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, ownerCaller, publicOwner, type PublicSetup } from '../public/fixtures';

/**
 * docs/calendars.md "How fresh, and what fails closed", for the owner's approval of a
 * proposal: it runs through the claim runner as an agent's booking does, behind the same
 * calendar gate. A mirror older than the freshness bound is synced before the approval
 * decides (a provider event added since refuses it); a calendar that cannot be trusted
 * refuses it with the same 409 CALENDAR_REAUTH_REQUIRED / 503 CALENDAR_UNAVAILABLE an
 * agent's POST /v1/bookings answers. A fake provider stands in for the network.
 */
type Mode = 'ok' | 'hang' | 'fail' | 'auth';
const fake = { mode: 'ok' as Mode, calls: 0, ics: '' };
const provider: CalendarProvider = {
  async listEvents(_range, _state, signal) {
    fake.calls++;
    if (fake.mode === 'hang') return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new ProviderUnavailableError('aborted'))));
    if (fake.mode === 'fail') throw new ProviderUnavailableError('HTTP 503 from the fake');
    if (fake.mode === 'auth') throw new ProviderAuthError('HTTP 401 from the fake');
    return { changed: [{ resource: 'r1', etag: String(fake.calls), ics: fake.ics }], removed: [], state: { n: fake.calls } };
  },
  async putBookingEvent(ev) {
    return { resource: ev.uid, etag: null };
  },
  async deleteBookingEvent() {},
};
registerProvider('fake', () => provider);

const day = nextWeekday('tue', 'UTC');
const stamp = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');
/** The provider's one event, at [start, end). */
const providerEvent = (start: string, end: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:busy-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${stamp(start)}\r\nDTEND:${stamp(end)}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;

let admin: TestCustomer;
let s: PublicSetup;
let agentKey: string;
let calendarId: string;

beforeAll(async () => {
  admin = await newCustomer();
  s = await publicOwner(admin);
  agentKey = (await newAgent(admin, ['create_proposals', 'create_bookings'])).key;
  const db = await getDb();
  calendarId = newId();
  await db.insert(calendars).values({ id: calendarId, customerId: admin.customerId, ownerId: s.ownerId, type: 'fake', displayName: 'Fake', status: 'active' });
  // Synced while the provider's only event lies before working hours.
  fake.ics = providerEvent(day.at('06:00'), day.at('06:30'));
  expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
});

beforeEach(async () => {
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '60');
  vi.stubEnv('CALENDAR_HARD_STALE_SECONDS', '600');
  vi.stubEnv('CALENDAR_SYNC_TIMEOUT_MS', '200');
  vi.stubEnv('CALENDAR_SYNC_INTERVAL_SECONDS', '30');
  fake.mode = 'ok';
  fake.ics = providerEvent(day.at('06:00'), day.at('06:30'));
  await setSynced(new Date());
  fake.calls = 0;
});

async function setSynced(at: Date | null) {
  const db = await getDb();
  await db.update(calendars).set({ lastSyncedAt: at, status: 'active', syncLeaseUntil: null, lastSyncError: null }).where(eq(calendars.id, calendarId));
}
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
const calendarRow = async () => (await (await getDb()).select().from(calendars).where(eq(calendars.id, calendarId)))[0];
const proposalStatus = async (id: string) => (await (await getDb()).select({ status: bookingProposals.status }).from(bookingProposals).where(eq(bookingProposals.id, id)))[0].status;

/** An agent's proposal pending the owner's review (made while the mirror is fresh, so its own gate has nothing to do). */
async function pendingProposal(): Promise<string> {
  const created = await call('POST', '/v1/booking-proposals', {
    key: agentKey,
    body: { owner_email: s.ownerEmail, meeting_class: 'internal', duration_minutes: 60, window: { start: day.at('09:00'), end: day.at('17:00') }, attendees: [] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.proposal_id;
}
const approve = async (proposalId: string, start: string, end: string) => (await ownerCaller(s)).proposals.approve({ proposal_id: proposalId, start, end });
/** An agent's direct booking of the same owner, as a reference for the answer the gate gives. */
const agentBooking = (start: string, end: string) => call('POST', '/v1/bookings', { key: agentKey, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start, end } });

describe('the calendar gate of an approval', () => {
  it('syncs a stale mirror first: a provider event added since refuses the approval (SACRED_MEETING) and the proposal stays pending', async () => {
    const id = await pendingProposal();
    // The provider gained an event at 10:00 after the last sync, which is older than the freshness bound (within the hard bound).
    fake.ics = providerEvent(day.at('10:00'), day.at('11:00'));
    await setSynced(ago(300));
    await expect(approve(id, day.at('10:00'), day.at('11:00'))).rejects.toMatchObject({ cause: { code: 'ARBITRATION_REJECTED', reason: 'SACRED_MEETING' } });
    expect(fake.calls).toBe(1);
    expect((await calendarRow()).lastSyncedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await proposalStatus(id)).toBe('pending_review');
    // Another time of the same proposal is free.
    expect(await approve(id, day.at('13:00'), day.at('14:00'))).toMatchObject({ status: 'booked', start: day.at('13:00') });
  });

  it('reads the mirror without the network while it is fresh', async () => {
    const id = await pendingProposal();
    fake.mode = 'hang';
    expect(await approve(id, day.at('14:00'), day.at('15:00'))).toMatchObject({ status: 'booked' });
    expect(fake.calls).toBe(0);
  });

  it('beyond the hard bound, a provider that answers again is synced and the approval decided', async () => {
    const id = await pendingProposal();
    await setSynced(ago(601));
    expect(await approve(id, day.at('15:00'), day.at('16:00'))).toMatchObject({ status: 'booked' });
    expect(fake.calls).toBe(1);
  });

  it.each(['hang', 'fail'] as const)('beyond the hard bound, a provider that %ss fails closed with the 503 CALENDAR_UNAVAILABLE of an agent booking', async (mode) => {
    const id = await pendingProposal();
    await setSynced(ago(601));
    fake.mode = mode;
    const booking = await agentBooking(day.at('16:00'), day.at('17:00'));
    expect(booking.status, booking.text).toBe(503);
    expect(booking.body.error.code).toBe('CALENDAR_UNAVAILABLE');
    await expect(approve(id, day.at('16:00'), day.at('17:00'))).rejects.toMatchObject({ cause: { code: 'CALENDAR_UNAVAILABLE', message: booking.body.error.message } });
    expect(fake.calls).toBe(2); // one sync attempt each
    expect(await proposalStatus(id)).toBe('pending_review');
  });

  it('a credential failure marks the calendar and refuses with the 409 CALENDAR_REAUTH_REQUIRED of an agent booking', async () => {
    const id = await pendingProposal();
    await setSynced(ago(300));
    fake.mode = 'auth';
    await expect(approve(id, day.at('16:00'), day.at('17:00'))).rejects.toMatchObject({ cause: { code: 'CALENDAR_REAUTH_REQUIRED' } });
    expect((await calendarRow()).status).toBe('reauth_required');
    const booking = await agentBooking(day.at('16:00'), day.at('17:00'));
    expect(booking.status, booking.text).toBe(409);
    expect(booking.body.error.code).toBe('CALENDAR_REAUTH_REQUIRED');
    // Until reconnected, even with the provider answering again.
    fake.mode = 'ok';
    await expect(approve(id, day.at('16:00'), day.at('17:00'))).rejects.toMatchObject({ cause: { code: 'CALENDAR_REAUTH_REQUIRED', message: booking.body.error.message } });
    expect(await proposalStatus(id)).toBe('pending_review');
  });
});
