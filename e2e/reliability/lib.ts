/**
 * Shared helpers of the reliability tests (e2e/reliability/*.spec.ts):
 * plain-fetch calls that record a Jepsen-style history, a pool of API keys
 * that keeps every key under its per-key rate limit, customer set-up through
 * the API, owner sign-in without a browser, and direct database checks.
 *
 * Everything here talks to the production servers the Playwright config
 * started (E2E_BASE_URLS) or to one the test started itself (crash.spec.ts).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { bootstrapKey } from '../bootstrapKey';
import { databaseUrl, PROJECT_ROOT } from '../servers';

const run = promisify(execFile);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Wall-clock milliseconds with sub-millisecond resolution (comparable with the server's clock on this machine). */
export const nowMs = () => performance.timeOrigin + performance.now();
export const iso = (ms: number) => new Date(ms).toISOString();
export const suffix = () => randomBytes(4).toString('hex');

// ---------------------------------------------------------------- calls and histories

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */
export type Reply = { status: number; text: string; json: any; headers: Headers };

/** One operation of a history: who sent what where, when it was invoked and when it completed, and the answer. */
export type HistoryEvent = {
  op: string;
  round: number;
  /** Which simulated client (API key index or session). */
  process: string;
  instance: string;
  invoke: number;
  complete: number;
  /** HTTP status; 0 when the request got no response (connection refused or reset). */
  status: number;
  code?: string;
  reason?: string;
  /** The raw response body. */
  text: string;
  error?: string;
  replayed?: boolean;
  /** Free-form tags (e.g. the Idempotency-Key) for the checks. */
  tag?: string;
};

export type CallOptions = {
  key?: string;
  body?: unknown;
  idempotencyKey?: string;
  cookie?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

/** One HTTP call with a JSON body; never throws on HTTP errors (network errors do throw). */
export async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
  if (opts.cookie) headers.cookie = opts.cookie;
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, text, json, headers: res.headers };
}

/**
 * A set-up or verification call on an endpoint without a per-key policy,
 * which therefore counts against the global 600/min per client IP (every
 * request of these tests comes from 127.0.0.1, and other spec files share
 * that budget): on 429 it waits Retry-After and tries again.
 */
export async function paced(base: string, method: string, path: string, opts: CallOptions = {}, maxWaitMs = 120_000): Promise<Reply> {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const r = await call(base, method, path, opts);
    if (r.status !== 429 || Date.now() > deadline) return r;
    pacedWaits.count += 1;
    await sleep(Math.max(1, Number(r.headers.get('retry-after') ?? 1)) * 1000 + 100);
  }
}
/** How often set-up calls had to wait for the per-IP limit (reported in the summaries). */
export const pacedWaits = { count: 0 };

/** Like `call`, but records the exchange as a history event (a network error becomes status 0). */
export async function recorded(
  history: HistoryEvent[],
  meta: { op: string; round: number; process: string; tag?: string },
  base: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<HistoryEvent> {
  const invoke = nowMs();
  let ev: HistoryEvent;
  try {
    const r = await call(base, method, path, opts);
    ev = {
      ...meta,
      instance: base,
      invoke,
      complete: nowMs(),
      status: r.status,
      // tRPC errors carry the domain error in error.data.domain (error.code is tRPC's JSON-RPC number).
      code: r.json?.error?.data !== undefined ? (r.json.error.data.domain?.code ?? r.json.error.data.code) : r.json?.error?.code,
      reason: r.json?.error?.data !== undefined ? r.json.error.data.domain?.reason : r.json?.error?.reason,
      text: r.text,
      replayed: r.headers.get('idempotent-replayed') === 'true',
    };
  } catch (err) {
    ev = { ...meta, instance: base, invoke, complete: nowMs(), status: 0, text: '', error: String((err as Error)?.cause ?? err) };
  }
  history.push(ev);
  return ev;
}

export function parse(ev: { text: string }): any {
  try {
    return JSON.parse(ev.text);
  } catch {
    return null;
  }
}

export function tallyStatuses(events: HistoryEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) {
    const k = e.status >= 400 ? `${e.status} ${e.code ?? '?'}${e.reason ? `/${e.reason}` : ''}` : String(e.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// ---------------------------------------------------------------- error vocabulary (docs/api.md "3. Errors")

/** docs/api.md "9. Arbitration, counter-proposals and alternatives": the reasons an ARBITRATION_REJECTED may carry. */
const SPEC_ARBITRATION_REASONS = new Set([
  'NO_CAPACITY',
  'WORKING_HOURS',
  'OFF_DAY',
  'SACRED_MEETING',
  'MAX_DAILY_HOURS',
  'PERMISSION_DENIED_PREEMPT',
  'COUNTER_PROPOSED',
]);
/** docs/api.md "3. Errors": NO_SLOTS_AVAILABLE reason_code values. */
const SPEC_NO_SLOTS_REASON_CODES = new Set(['NO_FREE_SLOTS', 'DAILY_HOURS_LIMIT', 'OFF_DAY', 'WORKING_HOURS', 'HARD_BLOCK']);
/** docs/arbitration.md "Counter-proposals and alternatives": alternatives' reason_code when counter-proposing. */
const ALTERNATIVE_REASON_CODES = new Set(['capacity_conflict', 'working_hours', 'off_day', 'daily_hours_limit']);

/**
 * Problems with a 409 that says "somebody else has this time": the code must
 * be one the path may answer, the reason valid per docs/api.md and plausible for
 * a plain capacity conflict, and the SPEC envelope complete.
 */
export function conflictProblems(ev: HistoryEvent, allowedCodes: string[]): string[] {
  const problems: string[] = [];
  const body = parse(ev);
  const where = `${ev.op} round ${ev.round} via ${ev.instance} (${ev.process}): ${ev.status} ${ev.text.slice(0, 300)}`;
  if (ev.status !== 409) return [`unexpected status: ${where}`];
  if (!body) return [`unparseable body: ${where}`];
  // tRPC errors carry the domain error in error.data.domain; REST ones in the envelope.
  const trpc = body.error?.data !== undefined;
  const error = trpc ? body.error.data.domain : body.error;
  if (!error) return [`no domain error: ${where}`];
  if (!trpc && !Array.isArray(body.pending_notifications)) problems.push(`no pending_notifications array: ${where}`);
  if (!allowedCodes.includes(error.code)) problems.push(`code ${error.code} not among ${allowedCodes.join('/')}: ${where}`);
  const extra = trpc ? (error.extra ?? {}) : body;
  if (error.code === 'ARBITRATION_REJECTED') {
    if (!SPEC_ARBITRATION_REASONS.has(error.reason)) problems.push(`reason ${error.reason} is not in SPEC's table: ${where}`);
    else if (!['NO_CAPACITY', 'COUNTER_PROPOSED'].includes(error.reason)) problems.push(`reason ${error.reason} does not describe a capacity conflict: ${where}`);
    if (!Array.isArray(extra.alternatives)) problems.push(`no alternatives[]: ${where}`);
    else {
      if (error.reason === 'COUNTER_PROPOSED' && extra.alternatives.length === 0) problems.push(`COUNTER_PROPOSED without alternatives: ${where}`);
      if (error.reason === 'NO_CAPACITY' && extra.alternatives.length > 0) problems.push(`NO_CAPACITY although alternatives exist (docs/arbitration.md: counter-propose): ${where}`);
      for (const a of extra.alternatives) {
        if (!ALTERNATIVE_REASON_CODES.has(a.reason_code)) problems.push(`alternative reason_code ${a.reason_code}: ${where}`);
      }
    }
  } else if (error.code === 'NO_SLOTS_AVAILABLE') {
    if (!SPEC_NO_SLOTS_REASON_CODES.has(extra.reason_code)) problems.push(`reason_code ${extra.reason_code} is not in SPEC's table: ${where}`);
    else if (extra.reason_code !== 'NO_FREE_SLOTS') problems.push(`reason_code ${extra.reason_code} does not describe a busy calendar: ${where}`);
    if (!('next_available' in extra) && extra.next_available_exceeds_lookahead !== true) problems.push(`neither next_available nor next_available_exceeds_lookahead: ${where}`);
  }
  return problems;
}

// ---------------------------------------------------------------- keys and customers

export type PoolKey = { key: string; agentId: string; index: number };
export type Policy = 'holds' | 'bookings' | 'confirm';

/**
 * API keys handed out round-robin per rate-limit policy. Holds, bookings and
 * confirm allow 120 requests per minute per key (sliding window), so no key
 * is ever used more than `budget` times per policy over a whole test: then no
 * request can be refused by the per-key limit, whatever the timing.
 */
export class KeyPool {
  private readonly used: Record<Policy, number[]>;
  private readonly cursor: Record<Policy, number> = { holds: 0, bookings: 0, confirm: 0 };
  constructor(
    readonly keys: PoolKey[],
    readonly budget = 100,
  ) {
    this.used = { holds: keys.map(() => 0), bookings: keys.map(() => 0), confirm: keys.map(() => 0) };
  }
  take(policy: Policy): PoolKey {
    const i = this.cursor[policy]++ % this.keys.length;
    if (this.used[policy][i] >= this.budget) {
      throw new Error(`key pool exhausted for ${policy}: ${this.keys.length} keys x ${this.budget}; mint more keys`);
    }
    this.used[policy][i] += 1;
    return this.keys[i];
  }
  maxUse(): Record<Policy, number> {
    return { holds: Math.max(...this.used.holds), bookings: Math.max(...this.used.bookings), confirm: Math.max(...this.used.confirm) };
  }
}

const AGENT_PERMISSIONS = ['read_availability', 'create_holds', 'create_bookings', 'create_proposals'];

export type Customer = { customerId: string; adminKey: string; adminAgentId: string };

/** A new customer (CLI bootstrap on the shared database) with one meeting class. */
export async function newCustomer(label: string, base: string, meetingClass: Record<string, unknown> = { name: 'internal', priority: 30 }): Promise<Customer> {
  const created = await bootstrapKey(`${label} ${suffix()}`);
  const r = await paced(base, 'POST', '/v1/meeting-classes', { key: created.api_key, body: meetingClass });
  if (r.status !== 201) throw new Error(`meeting class: ${r.status} ${r.text}`);
  return { customerId: created.customer_id, adminKey: created.api_key, adminAgentId: created.agent_id };
}

/** A calendar owner with no working hours (every time is bookable; the WORKING_HOURS_NOT_CONFIGURED warning applies). */
export async function newOwner(c: Customer, base: string, label: string): Promise<string> {
  const email = `${label}-${suffix()}@reliability.e2e.example`;
  const r = await paced(base, 'POST', '/v1/owners', { key: c.adminKey, body: { email, name: label, time_zone: 'UTC' } });
  if (r.status !== 201) throw new Error(`owner: ${r.status} ${r.text}`);
  return email;
}

/** `agents` agents with `keysPerAgent` keys each, made through the admin API (paced for the per-IP limit). */
export async function mintKeys(c: Customer, bases: string[], agents: number, keysPerAgent: number, permissions = AGENT_PERMISSIONS): Promise<PoolKey[]> {
  const out: PoolKey[] = [];
  let n = 0;
  for (let a = 0; a < agents; a++) {
    const base = bases[n++ % bases.length];
    const agent = await paced(base, 'POST', '/v1/agents', { key: c.adminKey, body: { name: `reliability agent ${a}`, owner_scope: 'org:*', permissions } });
    if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${agent.text}`);
    const agentId: string = agent.json.agent_id;
    const minted = await Promise.all(
      Array.from({ length: keysPerAgent }, (_, k) =>
        paced(bases[(n + k) % bases.length], 'POST', `/v1/agents/${agentId}/keys`, { key: c.adminKey, body: { name: `key ${k}` } }),
      ),
    );
    n += keysPerAgent;
    for (const m of minted) {
      if (m.status !== 201 || !String(m.json?.api_key).startsWith('ak_')) throw new Error(`key: ${m.status} ${m.text}`);
      out.push({ key: m.json.api_key, agentId, index: out.length });
    }
  }
  return out;
}

/** Set an owner's dashboard password with the CLI (on the shared database). */
export async function setPassword(email: string, password: string): Promise<void> {
  await run('npm', ['run', '-s', 'cli', '--', 'set-password', '--email', email, '--password', password], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
    timeout: 90_000,
  });
}

/** Sign an owner in through Auth.js's credentials endpoint (no browser); returns the Cookie header value. */
export async function signIn(base: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  if (csrf.status !== 200) throw new Error(`csrf: ${csrf.status} ${await csrf.text()}`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = csrf.headers.getSetCookie().map((c) => c.split(';')[0]);
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
    body: new URLSearchParams({ csrfToken, email, password, json: 'true', callbackUrl: `${base}/` }).toString(),
  });
  const session = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => /^(__Secure-)?next-auth\.session-token=/.test(c));
  if (!session) throw new Error(`sign-in of ${email} set no session cookie (status ${res.status}: ${(await res.text()).slice(0, 300)})`);
  return session;
}

// ---------------------------------------------------------------- database

export type Sql = postgres.Sql;

/** A small postgres.js client on the shared database. */
export function openDb(url = databaseUrl): Sql {
  if (!url) throw new Error('E2E_DATABASE_URL is not set');
  return postgres(url, { max: 3, onnotice: () => {}, idle_timeout: 5 });
}

export type OverlapRow = { owner_id: string; a: string; a_kind: string; a_start: Date; a_end: Date; b: string; b_kind: string; b_start: Date; b_end: Date };

/**
 * Pairs of active claims (unexpired or not: the exclusion constraint's own
 * predicate, status active or confirmed) of one owner whose intervals
 * overlap. Must always be empty. `ownerIds` narrows the check.
 */
export async function overlappingClaims(sql: Sql, ownerIds?: string[]): Promise<OverlapRow[]> {
  const rows = await sql<OverlapRow[]>`
    select a.owner_id, a.id as a, a.kind as a_kind, a.start_at as a_start, a.end_at as a_end,
           b.id as b, b.kind as b_kind, b.start_at as b_start, b.end_at as b_end
      from claims a
      join claims b
        on b.owner_id = a.owner_id
       and a.id < b.id
       and tstzrange(a.start_at, a.end_at, '[)') && tstzrange(b.start_at, b.end_at, '[)')
     where a.status in ('active', 'confirmed')
       and b.status in ('active', 'confirmed')
       ${ownerIds ? sql`and a.owner_id in ${sql(ownerIds)}` : sql``}
     limit 50`;
  return [...rows];
}

export async function ownerIdOf(sql: Sql, customerId: string, email: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`select id from owners where customer_id = ${customerId} and email = ${email}`;
  if (!row) throw new Error(`no owner ${email}`);
  return row.id;
}
