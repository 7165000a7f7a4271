import { Temporal } from 'temporal-polyfill';
import type { Db } from '@/db/client';
import { PERMISSIONS } from '@/db/schema';
import type { AgentActor } from './access';
import { createAgent } from './agentService';
import { createBooking } from './claims';
import { createAgentProposal } from './publicScheduling/review';

/**
 * Demo activity for a freshly seeded customer (`cli seed-demo`, `npm run
 * dev`), so the dashboard is not empty on first run: an assistant agent
 * books a few meetings over the owner's next working days and sends three
 * proposals for review, one of them running into a lower-priority booking.
 * Everything goes through the same domain calls as the API (arbitration
 * included); times are in the owner's zone.
 */
export async function seedDemoActivity(db: Db, input: { customerId: string; ownerEmail: string; timeZone: string }, now: Date): Promise<{ bookings: number; proposals: number }> {
  const agent = await createAgent(db, input.customerId, null, { name: 'Calendar assistant', owner_scope: 'org:*', permissions: [...PERMISSIONS] });
  const actor: AgentActor = { kind: 'agent', agentId: agent.id, customerId: input.customerId, keyId: '', ownerScope: 'org:*', permissions: [...PERMISSIONS] };

  // The next five working days (Mon-Fri) after today, in the owner's zone.
  const today = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(input.timeZone).toPlainDate();
  const days: Temporal.PlainDate[] = [];
  for (let d = today.add({ days: 1 }); days.length < 5; d = d.add({ days: 1 })) if (d.dayOfWeek <= 5) days.push(d);
  const at = (day: number, hhmm: string) => {
    const [h, m] = hhmm.split(':').map(Number);
    return new Date(days[day].toPlainDateTime({ hour: h, minute: m }).toZonedDateTime(input.timeZone).epochMilliseconds);
  };

  const bookings: { day: number; start: string; end: string; title: string; cls: string; attendees: { email: string; name?: string }[] }[] = [
    { day: 0, start: '10:00', end: '11:00', title: 'Quarterly review with Initech', cls: 'external', attendees: [{ email: 'bill@initech.example', name: 'Bill Lumbergh' }] },
    { day: 0, start: '14:00', end: '14:30', title: '1:1 with Sam', cls: 'internal', attendees: [{ email: 'sam@demo.example', name: 'Sam' }] },
    { day: 1, start: '09:00', end: '10:30', title: 'Focus: planning', cls: 'focus', attendees: [] },
    { day: 1, start: '15:00', end: '16:00', title: 'Design sync', cls: 'internal', attendees: [{ email: 'lee@demo.example', name: 'Lee' }, { email: 'kim@demo.example' }] },
    { day: 2, start: '11:00', end: '12:00', title: 'Customer onboarding', cls: 'external', attendees: [{ email: 'ops@globex.example', name: 'Globex Ops' }] },
    { day: 3, start: '13:00', end: '14:30', title: 'Hiring panel', cls: 'internal', attendees: [{ email: 'hr@demo.example' }] },
  ];
  let booked = 0;
  for (const b of bookings) {
    await createBooking(db, actor, { ownerEmail: input.ownerEmail, meetingClass: b.cls, start: at(b.day, b.start), end: at(b.day, b.end), title: b.title, attendees: b.attendees }, now, null);
    booked++;
  }

  const proposals = [
    // Its candidates run into the 1:1 (internal, lower priority): the overlay shows the conflict.
    { day: 0, from: '13:30', to: '15:30', minutes: 60, cls: 'external', title: 'Intro call with Hooli about the pilot', message: 'Gavin would like to walk through the pilot plan.', attendees: [{ email: 'gavin@hooli.example', name: 'Gavin Belson' }] },
    { day: 1, from: '10:30', to: '12:00', minutes: 30, cls: 'internal', message: 'Can we go over the roadmap before Friday?', attendees: [{ email: 'lee@demo.example', name: 'Lee' }] },
    { day: 3, from: '09:00', to: '12:00', minutes: 45, cls: 'external', message: 'Vendor demo requested by procurement.', attendees: [{ email: 'sales@vandelay.example', name: 'Art Vandelay' }, { email: 'procurement@demo.example' }] },
  ];
  let proposed = 0;
  for (const p of proposals) {
    await createAgentProposal(db, actor, { ownerEmail: input.ownerEmail, meetingClass: p.cls, durationMinutes: p.minutes, window: { start: at(p.day, p.from), end: at(p.day, p.to) }, attendees: p.attendees, message: p.message, title: p.title }, now);
    proposed++;
  }
  return { bookings: booked, proposals: proposed };
}
