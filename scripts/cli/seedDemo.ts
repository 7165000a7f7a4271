/**
 * `npm run cli -- seed-demo`: the demo customer (docs/operations.md "CLI"): an owner
 * with rules, meeting classes, a public link with two meeting types, an admin API key, and
 * bookings and proposals made through the booking path so the dashboard has something to show.
 */
import { randomBytes } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { getDbHandle } from '@/server/db';
import { customers, publicLinks } from '@/db/schema';
import { setOwnerPassword } from '@/server/domain/passwords';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { createOwner, putScheduleRules } from '@/server/domain/ownerService';
import { seedDemoActivity } from '@/server/domain/demoActivity';
import { createLink } from '@/server/domain/publicScheduling/admin/links';
import { createMeetingType } from '@/server/domain/publicScheduling/admin/meetingTypes';
import { describeDatabase, exampleBaseUrl, generatePassword, type Out } from './common';

const DEMO = {
  customer: 'Demo Co',
  owner: { email: 'demo.owner@example.com', name: 'Dana Demo', time_zone: 'Europe/Berlin', role: 'admin' as const },
  workday: { start: '09:00', end: '17:00' },
  lunch: { start: '12:00', end: '13:00' },
  maxDailyMeetingHours: 6,
  /** The public booking page (docs/dashboard.md "Public links"): `/{alias}`, the first free of these. */
  link: { aliases: ['dana', 'dana-demo', 'dana-demo-2', 'dana-demo-3'], title: 'Book time with Dana' },
  meetingTypes: [
    { slug: 'intro', title: 'Intro call', duration_minutes: [30], meeting_class: 'external', description: 'A first conversation about what you are working on.' },
    { slug: 'project-review', title: 'Project review', duration_minutes: [45, 60], meeting_class: 'external', attendee_limit: 4, description: 'Walk through your project with Dana; bring up to three colleagues.' },
  ],
  classes: [
    { name: 'external', priority: 50, preempt_policy: 'preempt_lower' as const, sacred_meeting_age_hours: 24 },
    { name: 'internal', priority: 30, preempt_policy: 'preempt_lower' as const, sacred_meeting_age_hours: 24 },
    { name: 'focus', priority: 10, preempt_policy: 'never' as const, sacred_meeting_age_hours: 24 },
  ],
};

export async function seedDemo(ifEmpty: boolean, out: Out): Promise<number> {
  const { db } = await getDbHandle();
  if (ifEmpty) {
    const present = (await db.select({ id: customers.id }).from(customers).limit(1)).length > 0;
    if (present) {
      if (out.json) out.write(JSON.stringify({ seeded: false, reason: 'database already has a customer' }) + '\n');
      else out.write(`Nothing seeded: ${describeDatabase()} already has a customer (--if-empty).\n`);
      return 0;
    }
  }

  const now = new Date();
  const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri'] as const;
  const ownerPassword = generatePassword();
  const seeded = await db.transaction(async (tx) => {
    const boot = await bootstrapCustomer(tx, DEMO.customer, now);
    const owner = await createOwner(tx, boot.customer_id, DEMO.owner);
    await putScheduleRules(
      tx,
      boot.customer_id,
      owner.email,
      {
        working_hours: Object.fromEntries(weekdays.map((d) => [d, [DEMO.workday]])),
        hard_blocks: [{ days: [...weekdays], ...DEMO.lunch, label: 'Lunch' }],
        max_daily_meeting_hours: DEMO.maxDailyMeetingHours,
      },
      now,
    );
    for (const c of DEMO.classes) await createMeetingClass(tx, boot.customer_id, c);
    await setOwnerPassword(tx, boot.customer_id, owner.email, ownerPassword);
    // A public link with two meeting types; aliases are global, so a second demo customer takes the next free one.
    const taken = new Set((await tx.select({ alias: publicLinks.alias }).from(publicLinks).where(inArray(publicLinks.alias, DEMO.link.aliases))).map((r) => r.alias));
    const alias = DEMO.link.aliases.find((a) => !taken.has(a)) ?? `dana-${randomBytes(3).toString('hex')}`;
    const link = await createLink(tx, boot.customer_id, owner.email, { alias, title: DEMO.link.title }, now);
    for (const t of DEMO.meetingTypes) await createMeetingType(tx, boot.customer_id, null, link.link.id, t, now);
    return { ...boot, alias };
  });
  // Bookings and pending proposals so the dashboard has something to show (through the booking path, after the commit).
  const activity = await seedDemoActivity(db, { customerId: seeded.customer_id, ownerEmail: DEMO.owner.email, timeZone: DEMO.owner.time_zone }, now);

  const base = exampleBaseUrl();
  const curl = `curl -H "Authorization: Bearer ${seeded.api_key}" "${base}/v1/schedule-rules?owner_email=${DEMO.owner.email}"`;
  if (out.json) {
    out.write(
      JSON.stringify({
        seeded: true,
        customer_id: seeded.customer_id,
        agent_id: seeded.agent_id,
        api_key: seeded.api_key,
        owner_email: DEMO.owner.email,
        owner_password: ownerPassword,
        meeting_classes: DEMO.classes.map((c) => c.name),
        demo_bookings: activity.bookings,
        demo_proposals: activity.proposals,
        public_link_alias: seeded.alias,
        booking_page_url: `${base}/${seeded.alias}`,
        example_curl: curl,
      }) + '\n',
    );
  } else {
    out.write(
      [
        `Seeded the demo customer "${DEMO.customer}" on ${describeDatabase()}`,
        `  Owner            ${DEMO.owner.name} <${DEMO.owner.email}>, ${DEMO.owner.time_zone}, role ${DEMO.owner.role}`,
        `  Working hours    Mon-Fri ${DEMO.workday.start}-${DEMO.workday.end}, lunch ${DEMO.lunch.start}-${DEMO.lunch.end} blocked, at most ${DEMO.maxDailyMeetingHours} meeting hours a day`,
        `  Meeting classes  ${DEMO.classes.map((c) => `${c.name} (priority ${c.priority}${c.preempt_policy === 'never' ? ', never preempts' : ''})`).join(', ')}`,
        `  Admin agent      ${seeded.agent_id} (every permission, owner_scope org:*)`,
        `  API key          ${seeded.api_key}   (shown once)`,
        `  Demo activity    ${activity.bookings} bookings and ${activity.proposals} proposals awaiting review`,
        `  Dashboard        sign in at ${exampleBaseUrl()}/signin as ${DEMO.owner.email} / ${ownerPassword} (or ask for an email link)`,
        `  Booking page     ${base}/${seeded.alias}   (${DEMO.meetingTypes.map((t) => t.title).join(', ')})`,
        '',
        'Try it:',
        `  ${curl}`,
        '',
      ].join('\n'),
    );
  }
  return 0;
}
