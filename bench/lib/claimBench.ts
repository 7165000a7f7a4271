/**
 * A production server of the checkout for the claim benchmarks over HTTP (bench/series.ts,
 * bench/waitlist-offer.ts), on PostgreSQL (BENCH_DATABASE_URL, default the `bench` database) or
 * on the embedded database (PGlite on disk in a fresh temporary directory, the README's default).
 * The customer and its API keys are seeded before the server starts (the embedded database
 * admits one process); everything else goes through the API. Needs a build in --app-dir (default
 * the checkout: `npm run build` first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DbHandle } from '@/db/client';
import { openPglite } from '@/db/drivers/pglite';
import { openPostgres } from '@/db/drivers/postgres';
import { mintKeys, seedCustomer } from '../booking/seed';
import { MIGRATIONS, ROOT, opt } from '../booking/options';
import { requestJson, type JsonAnswer } from './httpClient';
import { ensureDatabase, log } from './measure';
import { startServer, stopServer, type RunningServer } from './nextServer';

export type BenchDb = 'postgres' | 'embedded';
const PG_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';

/** --db=postgres|embedded|both (default both). */
export function benchDbs(): BenchDb[] {
  const v = opt('db') ?? 'both';
  return v === 'both' ? ['postgres', 'embedded'] : [v as BenchDb];
}

type ClaimServer = { baseUrl: string; adminKey: string; keys: string[]; className: string; dbLabel: string; stop(): Promise<void> };

/** Seed a customer with `keys` API keys of its admin agent (the per-key booking limit is 120 a minute), then start the server on it. */
export async function startClaimServer(db: BenchDb, keys: number, env: Record<string, string> = {}): Promise<ClaimServer> {
  const appDir = path.resolve(opt('app-dir') ?? ROOT);
  if (!fs.existsSync(path.join(appDir, '.next', 'BUILD_ID'))) throw new Error(`no build in ${appDir}/.next: run npm run build (or pass --app-dir)`);
  const dir = db === 'embedded' ? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-claims-')) : undefined;
  if (db === 'postgres') await ensureDatabase(PG_URL);
  const handle: DbHandle = dir ? await openPglite(path.join(dir, 'db'), MIGRATIONS) : await openPostgres(PG_URL, 2, MIGRATIONS);
  const seeded = await seedCustomer(handle.db, `claims ${db}`);
  const minted = await mintKeys(handle.db, seeded, keys);
  await handle.close();
  const dbEnv = dir ? { PGLITE_DIR: path.join(dir, 'db') } : { DATABASE_URL: PG_URL };
  log(`  ${db}: starting the server`);
  const server: RunningServer = await startServer(appDir, { ...dbEnv, LOG_LEVEL: 'silent', OUTBOUND_ALLOW_PRIVATE: '1', ...env });
  const dbLabel = dir ? 'embedded PGlite on disk' : `PostgreSQL (${new URL(PG_URL).host}${new URL(PG_URL).pathname})`;
  return {
    baseUrl: server.baseUrl,
    adminKey: seeded.apiKey,
    keys: minted,
    className: 'bench-booking',
    dbLabel,
    async stop() {
      await stopServer(server.child);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One API call; a 429 waits its Retry-After and is sent again (the benches measure decisions, not the limits). */
export async function api(srv: ClaimServer, key: string, method: string, p: string, body?: unknown): Promise<JsonAnswer> {
  for (;;) {
    const r = await requestJson(srv.baseUrl, method, p, { authorization: `Bearer ${key}` }, body);
    if (r.status !== 429) return r;
    await new Promise((res) => setTimeout(res, 1_000));
  }
}

/** An owner with no working hours (every time bookable), in Europe/Berlin (a year of weekly occurrences crosses both DST changes). */
export async function newOwner(srv: ClaimServer, label: string): Promise<string> {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@bench.example`;
  const r = await api(srv, srv.adminKey, 'POST', '/v1/owners', { email, time_zone: 'Europe/Berlin' });
  if (r.status !== 201) throw new Error(`owner: ${r.status} ${JSON.stringify(r.body)}`);
  return email;
}

/** Midnight UTC `days` days from now. */
export const daysAhead = (days: number) => Math.floor(Date.now() / 86_400_000) * 86_400_000 + days * 86_400_000;
export const iso = (ms: number) => new Date(ms).toISOString();
