import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '../test';
import { PROJECT_ROOT, usesPostgres } from '../servers';
import { readAll } from '../mailbox';
import { call, iso, newCustomer, newOwner, openDb, sleep, type Sql } from './lib';
import { productionServer, type ServerProcess } from './serverProcess';

/**
 * Reminders survive a SIGKILL (docs/reliability.md "Reminders"): the test starts its own
 * production server (scripts/serve.mjs on the shared PostgreSQL, mail to the run's mailbox), books
 * 12 meetings whose 5-minute reminders fall due one after another, 400 ms apart, and kills the
 * server with SIGKILL while they are falling due; it restarts it after the last one is due. Every
 * reminder must then have gone out exactly once: its row `sent`, one booking.reminder notification
 * for the agent, one mail to its attendee. The other e2e instances share the database and run the
 * worker too: whoever sends a reminder, it must go out once.
 */
test.describe('reminders: kill -9 while due', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the test starts its own server on the shared PostgreSQL');
  test.skip(!fs.existsSync(path.join(PROJECT_ROOT, '.next', 'BUILD_ID')), 'needs a production build in .next (the Playwright run makes one)');
  test.setTimeout(180_000);

  let server: ServerProcess | undefined;
  let sql: Sql | undefined;
  test.afterAll(async () => {
    await server?.kill9();
    await sql?.end();
  });

  test('every reminder due around the kill is sent exactly once after the restart', async () => {
    server = await productionServer({ SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`, MAIL_FROM: 'Scheduling <no-reply@e2e.example>' });
    await server.start();
    const customer = await newCustomer('E2E reminders kill', server.url, { name: 'reminded', priority: 30, reminder_offsets_minutes: [5] });
    const N = 12;
    const owners: string[] = [];
    for (let i = 0; i < N; i++) owners.push(await newOwner(customer, server.url, `reminded${i}`));

    // Reminder i falls due at first + 400 ms * i: the first ~5 s from now, the last ~4.4 s later.
    const first = Date.now() + 5_000;
    const bookings: { id: string; attendee: string }[] = [];
    for (let i = 0; i < N; i++) {
      const start = first + 5 * 60_000 + 400 * i;
      const attendee = `reminded-guest-${i}-${customer.customerId.slice(-8)}@example.com`;
      const res = await call(server.url, 'POST', '/v1/bookings', {
        key: customer.adminKey,
        body: { owner_email: owners[i], meeting_class: 'reminded', start: iso(start), end: iso(start + 15 * 60_000), attendees: [{ email: attendee }] },
      });
      expect(res.status, res.text).toBe(201);
      bookings.push({ id: res.json.booking_id, attendee });
    }
    expect(Date.now(), 'booked before the first reminder fell due').toBeLessThan(first);

    // Kill the server halfway through the run of due times; start it again once all are due.
    await sleep(first + 400 * (N / 2) - Date.now());
    await server.kill9();
    await sleep(first + 400 * N + 500 - Date.now());
    await server.start();

    sql = openDb();
    const ids = bookings.map((b) => b.id);
    const deadline = Date.now() + 90_000; // a reminder leased by the killed server waits out its 30 s lease
    let rows: { status: string }[] = [];
    while (Date.now() < deadline) {
      rows = await sql`select status from booking_reminders where booking_id = any(${ids}::uuid[])`;
      if (rows.length === N && rows.every((r) => r.status === 'sent')) break;
      await sleep(200);
    }
    expect(rows.map((r) => r.status)).toEqual(Array(N).fill('sent'));

    const notices = await sql`select data->>'booking_id' as booking_id from notifications where agent_id = ${customer.adminAgentId} and kind = 'booking.reminder'`;
    expect(notices.map((n) => n.booking_id).sort()).toEqual([...ids].sort());

    // One reminder message per attendee (beside the invitation). Mail goes out before the row turns sent, so a kill between the two
    // sends it again after the restart: the same message, under the same Message-ID (docs/reliability.md "Reminders").
    // The mailbox is written by the SMTP sink as each message arrives: read it until every attendee's is there (or 15 s).
    const remindersOf = (all: ReturnType<typeof readAll>, to: string) => all.filter((m) => m.to.includes(to) && m.subject.startsWith('Reminder:'));
    let mail = readAll();
    for (const until = Date.now() + 15_000; Date.now() < until && bookings.some((b) => !remindersOf(mail, b.attendee).length); mail = readAll()) await sleep(200);
    // Exactly one reminder message per attendee: the same Message-ID when a kill made the worker send it twice.
    // (Earlier CI runs lost some because servers started by other e2e tests had no SMTP_URL and logged
    // what they sent; docs/reliability.md "Reminders".)
    const arrived = bookings.filter((b) => remindersOf(mail, b.attendee).length > 0).length;
    console.log(`[reminders-kill] reminder messages arrived for ${arrived} of ${N} attendees`);
    for (const b of bookings) {
      const mine = remindersOf(mail, b.attendee);
      expect(mine.length, b.attendee).toBeGreaterThan(0);
      for (const m of mine) expect(m.subject, b.attendee).toBe('Reminder: meeting in 5 minutes');
      expect(new Set(mine.map((m) => /^Message-ID:\s*(\S+)/im.exec(m.raw)?.[1])).size, b.attendee).toBe(1);
    }
  });
});
