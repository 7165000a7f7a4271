/**
 * pgbench rows of the booking benchmark: the statements of a booking (the service's own texts,
 * imported from its modules) as a pgbench script, with and without the idempotency record.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { INSERT_AUDIT } from '@/db/hot/audit';
import { auditLog, claims } from '@/db/schema';
import { AROUND_BY_EMAIL, EXPIRE_BY_EMAIL, INSERT_CLAIM, MADE_WITH_KEY } from '@/db/hot/claims';
import { targetStatement } from '@/db/hot/target';
import { VERDICT_CLAIMS_MARGIN_MS } from '@/server/domain/scheduling';
import { newId } from '@/server/domain/ids';
import { CLAIM_KEY, COMPLETE_KEY, IDEMPOTENCY_RETENTION_MS } from '@/db/hot/idempotency';
import { requestFingerprint } from '@/server/http/idempotency';
import { fmt, loadAvg, log, stats, vacuumTables, waitIdle } from '../lib/measure';
import { BASE_MS, BENCH_DB_URL, CLASS, CLIENTS, ownerEmail, OWNERS, PREFILL, SLOT_MS, WAIT_IDLE_S, WORK_DIR } from './options';
import { insertArgs } from './insertArgs';
import { cpuSampler, type Row } from './sampler';
import type { Seeded } from './seed';

const RETENTION_S = IDEMPOTENCY_RETENTION_MS / 1000;

/** A statement of the service with its $n parameters replaced by pgbench expressions, on one line. */
function pgbenchStatement(text: string, args: string[], gset?: string): string {
  const used = new Set([...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  if (used.size !== args.length) throw new Error(`pgbench statement takes ${used.size} parameters, ${args.length} given: ${text.slice(0, 60)}`);
  const line = text.replace(/\$(\d+)/g, (_, n: string) => args[Number(n) - 1]).replace(/\s+/g, ' ');
  return gset === undefined ? `${line};` : `${line} \\gset${gset ? ' ' + gset : ''}`;
}

/**
 * The statements a booking sends (the very texts the service uses, imported from its modules),
 * one per round trip as pgbench runs them: with a key, the idempotency record insert
 * (autocommit), then the claim transaction (BEGIN, target look-up with the owner locked, key
 * look-up, hold expiry, claims around, claim insert, audit row, the record's completion with the
 * response, COMMIT), as the service does. pgbench cannot pipeline here: it reads the
 * owner, calendar and class ids with \gset, which pipeline mode does not allow. Values: ids from
 * gen_random_uuid() (the service sends UUIDv7 strings), the booking id derived from the slot
 * number (the service makes it before the insert, so claim and audit row carry it), times from
 * now()/to_timestamp() (the service sends ISO strings), the owner's email built in SQL from the
 * random owner number.
 */
function pgbenchScript(withKey: boolean): string {
  const key = withKey ? ':slot' : 'null';
  const email = `(:r::text || :domain)`;
  const bookingId = `(:idp || '-0000-7000-8000-' || lpad(to_hex(:slot::bigint), 12, '0'))::uuid`;
  const start = 'to_timestamp(:s)';
  const end = 'to_timestamp(:e)';
  const margin = VERDICT_CLAIMS_MARGIN_MS / 1000;
  const lines = [
    `\\set r random(0, ${OWNERS - 1})`,
    `\\set slot :n * ${CLIENTS} + :client_id`,
    `\\set n :n + 1`,
    `\\set s :base + :slot * ${SLOT_MS / 1000}`,
    `\\set e :s + ${SLOT_MS / 1000}`,
  ];
  if (withKey) {
    lines.push(pgbenchStatement(CLAIM_KEY, ['gen_random_uuid()', ':agent', "'POST'", "'/v1/bookings'", ':slot', ':fp', "now() + interval '30 seconds'", 'now()', `now() + interval '${RETENTION_S} seconds'`], 'i_'));
  }
  lines.push('begin;', pgbenchStatement(targetStatement(false, true), [':cust', email, ':class'], ''));
  if (withKey) lines.push(pgbenchStatement(MADE_WITH_KEY, [':agent', ':slot', "'booking'", `now() - interval '${RETENTION_S} seconds'`]));
  lines.push(
    pgbenchStatement(EXPIRE_BY_EMAIL, ['now()', ':cust', email]),
    pgbenchStatement(AROUND_BY_EMAIL, [':cust', `to_timestamp(:s - ${margin})`, `to_timestamp(:e + ${margin})`, email]),
    pgbenchStatement(
      INSERT_CLAIM,
      insertArgs(claims, {
        id: bookingId,
        customerId: ':cust',
        ownerId: ':o_id',
        calendarId: ':c_id',
        agentId: ':agent',
        meetingClassId: ':m_id',
        kind: "'booking'",
        status: "'confirmed'",
        startAt: start,
        endAt: end,
        source: "'agent'",
        attendees: "'[]'",
        externalAccepted: 'false',
        idempotencyKey: key,
        sequence: '0',
        createdAt: 'now()',
        updatedAt: 'now()',
      }, 'null'),
    ),
    pgbenchStatement(
      INSERT_AUDIT,
      insertArgs(auditLog, {
        id: 'gen_random_uuid()',
        customerId: ':cust',
        at: 'now()',
        agentId: ':agent',
        ownerId: ':o_id',
        ownerEmail: ':o_email',
        actorKind: "'agent'",
        action: "'booking.create'",
        outcome: "'accept'",
        meetingClass: ':m_name',
        startAt: start,
        endAt: end,
        bookingId,
        preemptedBookingIds: "'{}'",
        idempotencyKey: key,
      }, 'null'),
    ),
  );
  if (withKey) lines.push(pgbenchStatement(COMPLETE_KEY, [':i_id', '201', ':body']));
  lines.push('commit;');
  return lines.join('\n') + '\n';
}

export async function pgbenchRow(seeded: Seeded, tag: string, withKey: boolean, durationS: number): Promise<Row> {
  const script = path.join(WORK_DIR, `booking-${tag}.sql`);
  fs.writeFileSync(script, pgbenchScript(withKey));
  const logDir = fs.mkdtempSync(path.join(WORK_DIR, `pgbench-${tag}-`));
  const u = new URL(BENCH_DB_URL);
  const sampleBody = JSON.stringify({
    booking_id: newId(),
    hold_id: null,
    owner_email: ownerEmail(tag, 0),
    meeting_class: CLASS,
    start: new Date(BASE_MS).toISOString(),
    end: new Date(BASE_MS + SLOT_MS).toISOString(),
    status: 'confirmed',
    calendar_type: 'internal',
    title: null,
    description: null,
    attendees: [],
    created_at: new Date().toISOString(),
    preempted_booking_ids: [],
  });
  const vars = {
    n: String(Math.ceil(PREFILL / CLIENTS)),
    base: String(BASE_MS / 1000),
    cust: seeded.customerId,
    agent: seeded.agentId,
    class: CLASS,
    domain: `@${tag}.bench.example`,
    fp: requestFingerprint({ x: 1 }, ''),
    idp: randomBytes(4).toString('hex'), // booking ids: this random prefix and the slot number
    body: sampleBody,
  };
  const args = [
    '-n', '-M', 'prepared', '-c', String(CLIENTS), '-j', String(Math.min(CLIENTS, os.cpus().length)), '-T', String(durationS),
    '-f', script, '-l', `--log-prefix=${path.join(logDir, 'tx')}`,
    ...Object.entries(vars).flatMap(([k, v]) => ['-D', `${k}=${v}`]),
    // An empty host (postgres:///db) means the Unix socket in PGHOST, for pgbench as for postgres.js.
    ...(u.hostname ? ['-h', u.hostname, '-p', u.port || '5432'] : []),
    '-U', decodeURIComponent(u.username || 'postgres'), decodeURIComponent(u.pathname.slice(1)),
  ];
  await vacuumTables(BENCH_DB_URL);
  await waitIdle(WAIT_IDLE_S);
  const load = loadAvg();
  log(`  pgbench, ${withKey ? 'with' : 'without'} idempotency record: ${CLIENTS} clients, ${durationS} s (load average ${load})`);
  const env = { ...process.env, PGPASSWORD: decodeURIComponent(u.password || '') || process.env.PGPASSWORD };
  const child = spawn('pgbench', args, { cwd: logDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const started = performance.now();
  const sampler = cpuSampler(child.pid);
  sampler.startAt(started + 500); // pgbench connects first: skip the first half second
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  const cpu = sampler.stop();
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1] ?? NaN);
  const processed = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1] ?? 0);
  const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
  const aborted = [...out.matchAll(/client \d+ (?:script \d+ )?aborted[^\n]*/g)].map((m) => m[0]);
  if (code !== 0 || aborted.length) log(`    pgbench exit ${code}:\n${out.split('\n').filter((l) => /error|abort|fatal/i.test(l)).slice(0, 5).join('\n')}`);
  // Per-transaction log: "client_id transaction_no time script_no time_epoch time_us", time in microseconds.
  const lat: number[] = [];
  for (const f of fs.readdirSync(logDir)) {
    if (!f.startsWith('tx')) continue;
    for (const line of fs.readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
      const parts = line.split(' ');
      if (parts.length >= 6) lat.push(Number(parts[2]) / 1000);
    }
  }
  fs.rmSync(logDir, { recursive: true, force: true });
  const row: Row = {
    section: 'tx',
    mode: 'pgbench -M prepared (same SQL)',
    idem: withKey ? 'yes' : 'no',
    seconds: durationS,
    ok: processed,
    perSecond: tps,
    lat: stats(lat),
    errors: aborted.length || failed ? `${failed} failed, ${aborted.length} clients aborted` : '0',
    clientCpu: cpu.procMsPerS !== null && tps > 0 ? cpu.procMsPerS / tps : null,
    pgCpu: tps > 0 ? cpu.pgMsPerS / tps : null,
    busy: cpu.busy,
    load,
  };
  log(`    ${fmt(tps)} tps, p50 ${fmt(row.lat.p50)} ms, p99 ${fmt(row.lat.p99)} ms, errors ${row.errors}`);
  return row;
}
