/**
 * The typed client, @agent-scheduler/client (docs/agents.md "Use it from the TypeScript
 * client"): search, book, meet a refusal by its code, cancel. Against `npm run dev`:
 *   SCHEDULER_API_KEY=ak_... npx tsx examples/typescript-client.ts
 */
import { createSchedulerClient } from '@agent-scheduler/client';

const OWNER = process.env.OWNER_EMAIL ?? 'demo.owner@example.com';

async function main() {
  const api = createSchedulerClient({ baseUrl: process.env.SCHEDULER_URL ?? 'http://localhost:3000', apiKey: process.env.SCHEDULER_API_KEY!, headers: { 'x-agent-run': 'example' } });

  const start = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const window = { start: `${start}T00:00:00Z`, end: new Date(Date.parse(`${start}T00:00:00Z`) + 3 * 86_400_000).toISOString() };
  const found = await api.POST('/v1/availability/search', { body: { owner_email: OWNER, meeting_class: 'internal', duration_minutes: 30, window, distinct: true } });
  if (found.error) throw new Error(`search refused: ${found.error.code}`);
  const slot = found.data.slots[0];
  console.log(`search: ${found.data.slots.length} slots, first ${slot.start_local}`);

  const booking = { owner_email: OWNER, meeting_class: 'internal', start: slot.start, end: slot.end, title: 'Sync' };
  const booked = await api.POST('/v1/bookings', { body: booking });
  if (booked.error) throw new Error(`booking refused: ${booked.error.code}`);
  // 202: the owner's approval policy holds this agent's bookings; booking.approved or booking.declined follows.
  if (booked.data.status === 'pending_approval') {
    console.log(`held for the owner's approval: proposal ${booked.data.proposal_id}, hold ${booked.data.hold_id}`);
    return;
  }
  console.log(`booked ${booked.data.booking_id}`);

  // The same slot again: refused. A switch on `error.code` narrows the error to that code's body.
  const { error } = await api.POST('/v1/bookings', { body: booking });
  if (!error) throw new Error('the same slot was booked twice');
  switch (error.code) {
    case 'ARBITRATION_REJECTED':
      console.log(`refused: ARBITRATION_REJECTED (${error.error.reason}), ${error.conflicts?.length ?? 0} conflicts, alternative ${error.alternatives?.[0]?.start ?? 'none'}`);
      break;
    default:
      console.log(`refused: ${error.code}`);
  }

  const cancelled = await api.POST('/v1/bookings/{id}/cancel', { params: { path: { id: booked.data.booking_id } }, body: {} });
  console.log(cancelled.error ? `cancel refused: ${cancelled.error.code}` : 'cancelled');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
