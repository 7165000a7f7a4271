import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { getDb } from '@/server/db';
import { bookingProposals, owners } from '@/db/schema';
import { hashSecret, newId } from '@/server/domain/ids';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { api, uniqueEmail, type ApiOptions, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { startSmtp, type TestSmtp } from '../../helpers/smtp';
import { call, nextWeekday, STANDARD_CLASSES } from '../scheduling/fixtures';
import { freshIp } from '../../helpers/freshIp';

export { call, nextWeekday };

/** Every /public response of this test file, for the leak scan. */
export const recorded: { method: string; path: string; status: number; contentType: string; text: string }[] = [];
/** Strings no /public response may contain (owner emails, internal ids), added as fixtures make them. */
export const forbidden = new Set<string>();

/** A fresh client address (submissions are limited per address and link). */
export { freshIp };
const FILE_IP = freshIp();

/** `api()` for /public paths, from this file's address unless told, recording the response. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
export async function pub<T = any>(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const res = await api<T>(method, path, { ...opts, ip: opts.ip ?? FILE_IP });
  recorded.push({ method, path, status: res.status, contentType: res.headers.get('content-type') ?? '', text: res.text });
  return res;
}

/** Open a full public URL (status_url, contact_verification_url, a link from a mail) through pub(). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function pubUrl<T = any>(method: string, url: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const u = new URL(url);
  return pub<T>(method, u.pathname + u.search, opts);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** A bare local time such as "09:00" (ISO instants like T09:00:00.000Z do not count). */
const LOCAL_TIME = /(?<![T\d:])\d{2}:\d{2}(?![\d:])/;
const WORDS = /working_hours|hard_blocks|max_daily|priority|preempt|owner_email|owner_id|customer_id|link_id|proposal_id|meeting_class/i;

const WORDS_EXTRA = /conflicts|hard_block|sacred/i;
/**
 * The one place a /public answer shows an offset: the start_local/end_local of a suggested time
 * (docs/public-scheduling.md "Times"), a full RFC 3339 date-time with the host's offset, and the
 * start_caller/end_caller the requester asked for with time_zone (its own clock). Only
 * values of exactly that shape, under exactly those keys, are set aside before the scan.
 */
const LOCAL_FIELD = /"(start_local|end_local|start_caller|end_caller)":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?[+-]\d{2}:\d{2}"/g;

/** What a /public body must never show: internal ids, owner emails, owner rules, private scheduling words. */
export function leaksIn(raw: string): string[] {
  const text = raw.replace(LOCAL_FIELD, '"$1":"<local>"');
  const found: string[] = [];
  const uuid = UUID.exec(text);
  if (uuid) found.push(`uuid ${uuid[0]}`);
  const time = LOCAL_TIME.exec(text);
  if (time) found.push(`local time ${time[0]}`);
  const word = WORDS.exec(text) ?? WORDS_EXTRA.exec(text);
  if (word) found.push(`word ${word[0]}`);
  for (const f of forbidden) if (f && text.toLowerCase().includes(f.toLowerCase())) found.push(`forbidden ${f}`);
  return found;
}

/** Assert that no response recorded so far leaks anything (call in afterAll). */
export function expectNoLeaks(): void {
  const problems = recorded.flatMap((r) => leaksIn(r.text).map((l) => `${r.method} ${r.path} -> ${r.status}: ${l}`));
  expect(problems).toEqual([]);
}

/** SMTP_URL pointed at a fresh loopback server for this file. */
export async function useSmtp(): Promise<TestSmtp> {
  const smtp = await startSmtp();
  process.env.SMTP_URL = smtp.url;
  return smtp;
}

export type PublicSetup = { admin: TestCustomer; ownerEmail: string; ownerId: string; linkId: string; alias: string };

/**
 * An owner (named, Mon-Fri 09:00-17:00 in `timeZone`, standard classes) with a
 * public link. Owner email and internal ids are added to `forbidden`.
 */
export async function publicOwner(admin: TestCustomer, opts: { timeZone?: string; name?: string; title?: string; maxDailyMeetingHours?: number } = {}): Promise<PublicSetup> {
  const ownerEmail = uniqueEmail('pubowner');
  const tz = opts.timeZone ?? 'UTC';
  const created = await call('POST', '/v1/owners', { key: admin.key, body: { email: ownerEmail, name: opts.name ?? 'Ada Owner', time_zone: tz } });
  if (created.status !== 201) throw new Error(created.text);
  const r = [{ start: '09:00', end: '17:00' }];
  const rules = await call('PUT', '/v1/schedule-rules', {
    key: admin.key,
    body: { owner_email: ownerEmail, working_hours: { mon: r, tue: r, wed: r, thu: r, fri: r }, hard_blocks: [], max_daily_meeting_hours: opts.maxDailyMeetingHours ?? null },
  });
  if (rules.status !== 200) throw new Error(rules.text);
  for (const c of STANDARD_CLASSES) await call('POST', '/v1/meeting-classes', { key: admin.key, body: c });
  const alias = `pub-${newId().slice(-12)}`;
  const link = await call('POST', '/v1/public-scheduling/links', { key: admin.key, body: { owner_email: ownerEmail, alias, title: opts.title ?? 'Book time with Ada' } });
  if (link.status !== 201) throw new Error(link.text);
  const db = await getDb();
  const [owner] = await db.select({ id: owners.id }).from(owners).where(eq(owners.email, ownerEmail));
  for (const s of [ownerEmail, admin.customerId, admin.agentId, owner.id, link.body.link_id]) forbidden.add(s);
  return { admin, ownerEmail, ownerId: owner.id, linkId: link.body.link_id, alias: link.body.alias };
}

/** A meeting type on the link (defaults: 30/60 minutes, class external, public). */
export async function meetingType(s: PublicSetup, body: Record<string, unknown> = {}): Promise<string> {
  const slug = (body.slug as string) ?? `t-${newId().slice(-8)}`;
  const res = await call('POST', `/v1/public-scheduling/links/${s.linkId}/meeting-types`, {
    key: s.admin.key,
    body: { title: 'Intro call', duration_minutes: [30, 60], meeting_class: 'external', ...body, slug },
  });
  if (res.status !== 201) throw new Error(res.text);
  return slug;
}

/** An rc_ credential for an identity with this email. */
export async function credential(admin: TestCustomer, email: string): Promise<{ token: string; identityId: string; credentialId: string }> {
  const identity = await call('POST', '/v1/public-scheduling/requester-identities', { key: admin.key, body: { email } });
  if (identity.status !== 201) throw new Error(identity.text);
  forbidden.add(identity.body.identity_id);
  const cred = await call('POST', `/v1/public-scheduling/requester-identities/${identity.body.identity_id}/credentials`, { key: admin.key, body: {} });
  if (cred.status !== 201) throw new Error(cred.text);
  forbidden.add(cred.body.credential_id);
  return { token: cred.body.requester_credential, identityId: identity.body.identity_id, credentialId: cred.body.credential_id };
}

/** A tRPC caller signed in as this owner; `now` fixes the clock procedures see. */
export async function ownerCaller(s: PublicSetup, role: 'admin' | 'member' = 'member', now: () => Date = () => new Date()) {
  const req = new Request('http://scheduler.test/api/trpc');
  return createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: s.ownerId, customerId: s.admin.customerId, email: s.ownerEmail, role }, db: await getDb(), now });
}

/** A structured submission body for a time. */
export function structured(slug: string, slot: { start: string; end: string }, requester = uniqueEmail('requester'), extra: Record<string, unknown> = {}) {
  const minutes = (Date.parse(slot.end) - Date.parse(slot.start)) / 60_000;
  return { requester_contact: { email: requester, name: 'Rita Requester' }, attendees: [], public_meeting_type: slug, duration_minutes: minutes, requested_window: slot, ...extra };
}

/** Submit a structured proposal for the first suggested time on `day` and return the creation body plus the slot. */
export async function submitFirst(s: PublicSetup, slug: string, opts: { day?: ReturnType<typeof nextWeekday>; requester?: string; key?: string; ip?: string; duration?: number } = {}) {
  const day = opts.day ?? nextWeekday('wed', 'UTC');
  const q = `from=${encodeURIComponent(day.at('09:00'))}&to=${encodeURIComponent(day.at('17:00'))}&duration_minutes=${opts.duration ?? 30}`;
  const sugg = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?${q}`, { key: opts.key });
  if (sugg.status !== 200 || !sugg.body.suggested_times.length) throw new Error(`no suggestions: ${sugg.text}`);
  const slot = sugg.body.suggested_times[0] as { start: string; end: string };
  const requester = opts.requester ?? uniqueEmail('requester');
  const res = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { key: opts.key, ip: opts.ip, body: structured(slug, slot, requester) });
  if (res.status !== 201) throw new Error(`submission failed: ${res.text}`);
  return { ...res.body, slot, requester, token: new URL(res.body.status_url).pathname.split('/').pop()! } as {
    status: string;
    status_url: string;
    contact_verification_url?: string;
    slot: { start: string; end: string };
    requester: string;
    token: string;
  };
}

/** The proposal row behind a status token (tests only). */
export async function proposalRow(token: string) {
  const db = await getDb();
  const [row] = await db.select().from(bookingProposals).where(eq(bookingProposals.accessTokenHash, hashSecret(token)));
  return row;
}

/** Confirm a submission's contact over HTTP (POST, as the page's script does). */
export async function confirm(created: { contact_verification_url?: string }) {
  return pubUrl('POST', created.contact_verification_url!, { headers: { accept: 'application/json' } });
}

/**
 * A browser's caller of the requester procedures (the pages' tRPC, server/trpc/routers/requester.ts):
 * a fresh client address, no cookie; `record` keeps an answer for the leak scan.
 */
export async function requesterCaller() {
  const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test' });
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  const requester = createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db: await getDb(), now: () => new Date() }).requester;
  const record = <T>(name: string, v: T): T => {
    recorded.push({ method: 'TRPC', path: name, status: 200, contentType: 'application/json', text: JSON.stringify(v) });
    return v;
  };
  return { requester, record };
}
