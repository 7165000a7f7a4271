/**
 * Command-line options and the constants of the booking benchmark (bench/booking.ts describes
 * them), and the slot and owner naming every part of it shares.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Temporal } from 'temporal-polyfill';
import type { WorkingHoursJson } from '@/db/schema';

export const ROOT = path.resolve(__dirname, '..', '..');
export const argv = process.argv.slice(2);
export const flag = (name: string) => argv.includes(`--${name}`);
export const opt = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
/** --node-args="..." (node flags for a started server, separated by spaces). */
export const nodeArgsOpt = (): string[] => (opt('node-args') ?? '').split(/\s+/).filter(Boolean);
/** --env=K=V,K=V (extra environment for a started server). */
export const envOpt = (): Record<string, string> =>
  Object.fromEntries((opt('env') ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
export const QUICK = flag('quick');
export const DURATION_S = Number(opt('duration') ?? (QUICK ? 3 : 20));
export const VARIANT_S = Number(opt('variant-duration') ?? (QUICK ? 3 : Math.max(3, Math.round(DURATION_S / 2))));
export const WARMUP_S = QUICK ? 1 : 2;
export const HTTP_WARMUP_S = QUICK ? 1 : 3;
export const CLIENTS = Number(opt('clients') ?? 16);
export const OWNERS = Number(opt('owners') ?? 64);
export const HTTP_CONNECTIONS = Number(opt('http-connections') ?? 32);
export const RUN_TX = !flag('no-tx');
export const RUN_PGBENCH = !flag('no-pgbench');
export const RUN_VARIANTS = !flag('no-variants');
export const RUN_HTTP = !flag('no-http');
export const RUN_PGLITE = !flag('no-pglite');
export const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
export const KEEP = flag('keep');
export const WAIT_IDLE_S = Number(opt('wait-idle') ?? 0);
export const BENCH_DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
export const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
export const MIGRATIONS = path.join(ROOT, 'db', 'migrations');
export const STAGE_DIR = path.join(os.tmpdir(), 'agent-scheduler-bench-booking-app');
/** pgbench scripts and logs; removed at the end of a run. */
export const WORK_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-booking-'));

export const TARGET_RATIO = 0.5;
export const TARGET_RSS_MB = 350;
export const TZ = 'Europe/Berlin';
export const CLASS = 'bench-booking';
export const SLOT_MS = 5 * 60_000; // slot length = slot step: consecutive indices touch, never overlap
export const PER_KEY = 100; // requests per API key (bookings allow 120 per key per minute)
export const ALL_DAY: WorkingHoursJson = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]])) as WorkingHoursJson;

// Slots start on the Monday after next (local midnight) and run forward from there.
const today = Temporal.Now.plainDateISO(TZ);
export const BASE_MS = today.add({ days: 15 - today.dayOfWeek }).toZonedDateTime({ timeZone: TZ }).epochMilliseconds;
export const slotStart = (i: number) => BASE_MS + i * SLOT_MS;
export const ownerEmail = (tag: string, i: number) => `${i}@${tag}.bench.example`;
/** Slots pre-filled before each measurement: 98 h of 5-minute slots (the +-98 h a rejection loads for its alternatives). */
export const PREFILL = 1200;
