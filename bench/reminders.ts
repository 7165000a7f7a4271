/**
 * Reminder lag benchmark (docs/reliability.md "Reminders"; figures in docs/benchmarks.md "Reminders").
 *
 *   npx tsx bench/reminders.ts             60 s of due reminders at 100 per second (writes its section of docs/benchmarks.md)
 *   npx tsx bench/reminders.ts --quick     15 s (no docs unless --docs)
 *
 * In one process: a fresh customer with one owner and a loopback SMTP server (SMTP_URL points at
 * it); R bookings per second of the run (--rate, default 100), each with one attendee and one
 * reminder, written before the run with due times R per second, evenly spaced, starting 3 s after
 * the worker starts. The server's reminder worker (startReminderWorker, woken on commit by NOTIFY
 * and asleep until the next due time, as the server runs it) sends them: each is a mail over SMTP
 * and a transaction recording it sent with its booking.reminder notification. Lag is from a
 * reminder's due time to the worker having recorded it (target p99 <= 5 s, issue 39). Every
 * reminder must be recorded exactly once.
 *
 * Database: BENCH_DATABASE_URL (PostgreSQL, pool of 10), else the embedded PGlite on disk in a
 * fresh temporary directory. Options: --duration=S --rate=N --quick --docs/--no-docs
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { DbHandle } from '@/db/client';
import { openPglite } from '@/db/drivers/pglite';
import { openPostgres } from '@/db/drivers/postgres';
import { bookingReminders, claims, customers, owners } from '@/db/schema';
import { REMINDERS_CHANNEL } from '@/db/hot/reminders';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { closeMailer } from '@/server/domain/email';
import { newId } from '@/server/domain/ids';
import { startReminderWorker } from '@/server/domain/reminders/worker';
import { startSmtp } from '../tests/helpers/smtp';
import { writeBenchSection, type Figure } from './lib/benchDoc';
import { fmt, loadAvg, log, machineLine, markdownTable, stats } from './lib/measure';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
const QUICK = argv.includes('--quick');
const DURATION_S = opt('duration', QUICK ? 15 : 60);
const RATE = opt('rate', 100);
const WRITE_DOCS = argv.includes('--docs') || (!QUICK && !argv.includes('--no-docs'));
const ROOT = path.resolve(import.meta.dirname, '..');
const LEAD_MS = 3_000;
const ms = (v: number) => `${v >= 1000 ? Math.round(v).toLocaleString('en-US') : fmt(v)} ms`;

async function main() {
  const url = process.env.BENCH_DATABASE_URL;
  const migrations = path.join(ROOT, 'db', 'migrations');
  const dir = url ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-reminders-'));
  const handle: DbHandle = url ? await openPostgres(url, 10, migrations) : await openPglite(dir, migrations);
  const dbLabel = url ? `PostgreSQL (${new URL(url).host}${new URL(url).pathname}, pool 10)` : 'embedded PGlite on disk';
  const db = handle.db;
  const smtp = await startSmtp();
  process.env.SMTP_URL = smtp.url;
  const load0 = loadAvg();

  const boot = await bootstrapCustomer(db, `bench reminders ${Date.now()}`);
  const customerId = boot.customer_id;
  const ownerId = newId();
  await db.insert(owners).values({ id: ownerId, customerId, email: `owner-${ownerId.slice(-8)}@bench.example`, name: 'Bench Owner', timeZone: 'Europe/Berlin' });

  // The bookings (far ahead, one minute apart, so none overlaps) and their reminders, due RATE per second from start + LEAD_MS.
  const total = DURATION_S * RATE;
  const start = Date.now() + LEAD_MS + 2_000 + Math.ceil(total / 500) * 250; // time to write them first
  const meetingsFrom = Date.now() + 30 * 86_400_000;
  const due = new Map<string, number>();
  for (let i = 0; i < total; i += 500) {
    const batch = Array.from({ length: Math.min(500, total - i) }, (_, k) => i + k);
    const rows = batch.map((n) => ({ n, id: newId(), at: new Date(meetingsFrom + n * 60_000) }));
    await db.insert(claims).values(
      rows.map((r) => ({
        id: r.id,
        customerId,
        ownerId,
        kind: 'booking' as const,
        status: 'confirmed' as const,
        startAt: r.at,
        endAt: new Date(r.at.getTime() + 30_000),
        title: `Bench meeting ${r.n}`,
        attendees: [{ email: `guest-${r.n}@bench.example`, response: 'needs_action' as const }],
        source: 'agent' as const,
        createdAt: new Date(),
        updatedAt: new Date(),
      })),
    );
    await db.insert(bookingReminders).values(
      rows.map((r) => {
        const at = start + (r.n * 1000) / RATE;
        const id = newId();
        due.set(id, at);
        return { id, customerId, bookingId: r.id, offsetMinutes: 5, dueAt: new Date(at) };
      }),
    );
  }
  log(`wrote ${total} bookings with one reminder each, due ${RATE}/s from ${new Date(start).toISOString()}`);

  const lags: number[] = [];
  const recorded = new Map<string, number>();
  let finished!: () => void;
  const allDone = new Promise<void>((r) => (finished = r));
  const stop = startReminderWorker(async () => db, {
    pollMs: 60_000,
    customerId,
    listen: (onNotify, onState) => handle.listen(REMINDERS_CHANNEL, onNotify, onState),
    onOutcome: (outcome, id) => {
      recorded.set(id, (recorded.get(id) ?? 0) + 1);
      if (outcome === 'sent') lags.push(Date.now() - due.get(id)!);
      if (recorded.size === total) finished();
    },
  });
  await Promise.race([allDone, new Promise((r) => setTimeout(r, start - Date.now() + DURATION_S * 1000 + 60_000))]);
  stop();
  const twice = [...recorded.values()].filter((n) => n > 1).length;
  const sentRows = (await db.select({ status: bookingReminders.status }).from(bookingReminders).where(eq(bookingReminders.customerId, customerId))).filter((r) => r.status === 'sent').length;
  const mails = smtp.messages.length;
  await db.delete(customers).where(eq(customers.id, customerId));
  closeMailer();
  await smtp.close();
  await handle.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });

  const lag = stats(lags);
  const met = lag.p99 <= 5_000 && sentRows === total && twice === 0;
  const table = markdownTable(
    ['Reminders due', 'Recorded sent', 'Mails received', 'Recorded twice', 'Lag due->recorded p50 / p99 / max (ms)'],
    [[String(total), String(sentRows), String(mails), String(twice), `${fmt(lag.p50)} / ${fmt(lag.p99)} / ${fmt(lag.max)}`]],
  );
  console.log(`\n${table}\n\nTarget p99 <= 5 s: ${met ? 'met' : 'not met'}\n`);
  const figures: Figure[] = [
    { figure: `reminder lag p99 at ${RATE} due per second`, target: '<= 5 s', latest: `${ms(lag.p99)} (p50 ${ms(lag.p50)}, max ${ms(lag.max)})`, met: lag.p99 <= 5_000 },
    { figure: 'reminders recorded sent exactly once', target: 'every reminder', latest: `${sentRows.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}; ${twice} twice; ${mails.toLocaleString('en-US')} mails`, met: sentRows === total && twice === 0 },
  ];
  if (WRITE_DOCS) {
    writeBenchSection('reminders', {
      measures: `Lag from a reminder's due time to the reminder worker having mailed its attendee (loopback SMTP) and recorded it sent with its booking.reminder notification, with ${RATE} reminders falling due per second for ${DURATION_S} s; one worker, woken on commit and asleep until the next due time, as the server runs it.`,
      command: 'npx tsx bench/reminders.ts',
      run: `npx tsx bench/reminders.ts${argv.length ? ' ' + argv.join(' ') : ''}`,
      host: `${machineLine()}; ${dbLabel}; load average ${load0} at the start, ${loadAvg()} at the end`,
      figures,
      notes: [
        ...(DURATION_S < 60 ? [`${DURATION_S} s of due reminders (a full run takes 60).`] : []),
        "The host is shared with other engineers' builds and tests: compare the lag with the load average. Mail goes to a loopback SMTP server in the same process (one connection per message, as the service sends).",
      ],
    });
  }
  if (!met) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
