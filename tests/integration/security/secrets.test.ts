import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { hashSecret, newId } from '@/server/domain/ids';
import { webhookEndpoints } from '@/db/schema';
import { openWebhookSecret } from '@/server/domain/webhooks/secretStore';
import { api, uniqueEmail, type ApiOptions, type ApiResponse } from '../../helpers/app';
import { buildWorld, ipPool, tokenOf, type World } from './world';

/**
 * Secrets at rest and what /public shows.
 *  - Every plaintext secret a response handed out (ak_ keys, rc_ requester
 *    credentials, pt_ status tokens, cv_ verification tokens from status_url /
 *    contact_verification_url), including ones minted under an
 *    Idempotency-Key (whose response is stored for replay), is searched in
 *    EVERY column of EVERY table (row_to_json): neither the token, nor its
 *    random part, nor any 20-character piece of it may be there. Control: its
 *    SHA-256 is (so the scan looks where the secret lives).
 *  - Every /public response body of this file (successes, each error, the
 *    HTML page) contains no UUID-shaped string (internal ids).
 */
const ip = ipPool(13);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
let w: World;
const secrets: string[] = [];
const publicResponses: { label: string; res: ApiResponse }[] = [];

async function pub(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse> {
  const res = await api(method, path, { ip: ip(), ...opts });
  publicResponses.push({ label: `${method} ${path}`, res });
  return res;
}
const v1 = (method: string, path: string, opts: ApiOptions = {}) => api(method, path, { key: w.admin.key, ip: ip(), ...opts });
const seen = (res: ApiResponse, field: string) => {
  const value = res.body?.[field];
  if (typeof value === 'string') secrets.push(field.endsWith('_url') ? tokenOf(value) : value);
};

beforeAll(async () => {
  process.env.LOG_LEVEL = 'silent'; // without SMTP_URL verification mails (with their links) go to the log
  w = await buildWorld(ip);
  secrets.push(...w.secrets);
  publicResponses.push(...w.publicResponses.map((res) => ({ label: 'world submission', res })));
  const P = '/v1/public-scheduling';

  // shown-once secrets minted under an Idempotency-Key (the response is stored for replays), and their replays
  for (let i = 0; i < 2; i++) {
    const key = await v1('POST', `/v1/agents/${w.victimAgentId}/keys`, { body: { name: 'idem' }, idempotencyKey: 'secret-scan-key' });
    expect(key.status, key.text).toBe(201);
    seen(key, 'api_key');
    const cred = await v1('POST', `${P}/requester-identities/${w.identityId}/credentials`, { idempotencyKey: 'secret-scan-cred' });
    expect(cred.status, cred.text).toBe(201);
    seen(cred, 'requester_credential');
  }

  // a requester whose credential skips verification (pt_ without cv_), and one who verifies (cv_ used)
  const email = uniqueEmail('fast');
  const identity = await v1('POST', `${P}/requester-identities`, { body: { email } });
  const cred = await v1('POST', `${P}/requester-identities/${identity.body.identity_id}/credentials`);
  seen(cred, 'requester_credential');
  const made = await v1('POST', `${P}/links/${w.linkId}/meeting-types`, {
    body: { slug: 'fast', title: 'Fast', duration_minutes: [30], meeting_class: 'external', credential_skips_verification: true },
  });
  expect(made.status, made.text).toBe(201);
  const q = `from=${encodeURIComponent(w.day.at('09:00'))}&to=${encodeURIComponent(w.day.at('17:00'))}`;
  const times = await pub('GET', `/public/schedules/${w.alias}/meeting-types/fast/suggested-times?${q}`, { key: cred.body.requester_credential });
  expect(times.status, times.text).toBe(200);
  const slot = times.body.suggested_times[0];
  const fast = await pub('POST', `/public/schedules/${w.alias}/booking-proposals`, {
    key: cred.body.requester_credential,
    body: { requester_contact: { email }, attendees: [], public_meeting_type: 'fast', duration_minutes: 30, requested_window: slot },
  });
  expect(fast.status, fast.text).toBe(201);
  seen(fast, 'status_url');
  const slow = await pub('POST', `/public/schedules/${w.linkId}/booking-proposals`, {
    body: { requester_contact: { email: uniqueEmail('slow'), name: 'Slow' }, attendees: [{ email: uniqueEmail('guest') }], public_meeting_type: w.slug, duration_minutes: 30, requested_window: times.body.suggested_times[1] },
  });
  expect(slow.status, slow.text).toBe(201);
  seen(slow, 'status_url');
  seen(slow, 'contact_verification_url');
  const cv = tokenOf(slow.body.contact_verification_url);
  await pub('GET', `/public/contact-verifications/${cv}/confirm`);
  expect((await pub('POST', `/public/contact-verifications/${cv}/confirm`, { headers: { accept: 'application/json' } })).status).toBe(200);
  await pub('POST', `/public/contact-verifications/${cv}/confirm`); // 409 not_pending
  await pub('GET', `/public/booking-proposals/${tokenOf(slow.body.status_url)}`);
  await pub('POST', `/public/booking-proposals/${tokenOf(fast.body.status_url)}/withdraw`);
  if (w.statusToken) await pub('GET', `/public/booking-proposals/${w.statusToken}`, { key: w.credential });

  // the rest of the /public surface, errors included
  await pub('GET', `/public/schedules/${w.alias}`);
  await pub('GET', `/public/schedules/${w.linkId}`, { key: w.credential });
  await pub('GET', `/public/schedules/${newId()}`);
  await pub('GET', `/public/schedules/${w.alias}`, { key: 'rc_unknown' });
  await pub('GET', `/public/schedules/${w.alias}`, { key: w.admin.key });
  await pub('GET', `/public/schedules/${w.alias}/meeting-types/${w.slug}/suggested-times?duration_minutes=7`);
  await pub('POST', `/public/schedules/${w.alias}/booking-proposals`, { body: { requester_contact: { email: 'nope' }, attendees: [] } });
  await pub('POST', `/public/schedules/${w.alias}/booking-proposals`, { rawBody: '{', headers: { 'content-type': 'application/json' } });
  await pub('POST', `/public/schedules/${w.alias}/booking-proposals`, { rawBody: 'a=b', headers: { 'content-type': 'text/plain' } });
  await pub('POST', `/public/schedules/${w.alias}/booking-proposals`, { body: { requester_contact: { email: uniqueEmail() }, attendees: [], public_meeting_type: w.slug, duration_minutes: 30, requested_window: { start: w.day.at('03:00'), end: w.day.at('03:30') } } });
  await pub('GET', `/public/booking-proposals/pt_${'x'.repeat(43)}`);
  await pub('POST', `/public/contact-verifications/cv_${'x'.repeat(43)}/confirm`);
  await pub('GET', `/public/contact-verifications/cv_${'x'.repeat(43)}/confirm`);
  await pub('DELETE', `/public/schedules/${w.alias}`);
  await pub('GET', `/public/${newId()}/anything`);
  delete process.env.LOG_LEVEL;
}, 180_000);

async function tableTexts(): Promise<Map<string, string>> {
  const db = await getDb();
  const rowsOf = <T>(r: unknown) => ((r as { rows?: T[] }).rows ?? (r as T[])) as T[];
  const tables = rowsOf<{ table_name: string }>(
    await db.execute("select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'" as never),
  ).map((t) => t.table_name);
  const out = new Map<string, string>();
  for (const name of tables) {
    const rows = rowsOf<{ j: string }>(await db.execute(`select row_to_json(t)::text as j from "${name}" t` as never));
    out.set(name, rows.map((r) => r.j).join('\n'));
  }
  return out;
}

/** Does this sealed value open to `secret`? Rows sealed by other test files under other keys do not open here. */
function opensTo(sealed: string, secret: string): boolean {
  try {
    return openWebhookSecret(sealed) === secret;
  } catch {
    return false;
  }
}

describe('secrets at rest', () => {
  it('saw a secret of every kind the API hands out', () => {
    for (const prefix of ['ak_', 'rc_', 'pt_', 'cv_', 'whsec_']) expect(secrets.some((s) => s.startsWith(prefix)), `no ${prefix} secret was handed out`).toBe(true);
    expect(secrets.every((s) => /^(ak|rc|pt|cv|whsec)_[A-Za-z0-9_-]{40,}$/.test(s)), secrets.join(', ')).toBe(true);
  });

  it('no table holds a plaintext secret, its random part, its base64 or any 20-character piece of it; each is stored as its SHA-256 (signing secrets sealed)', async () => {
    const texts = await tableTexts();
    expect(texts.size).toBeGreaterThanOrEqual(15);
    const all = [...texts.values()].join('\n');
    const found: string[] = [];
    for (const secret of new Set(secrets)) {
      const random = secret.slice(secret.indexOf('_') + 1);
      const needles = [secret, random, ...Array.from({ length: random.length - 19 }, (_, i) => random.slice(i, i + 20))];
      for (const [table, text] of texts) {
        const hit = needles.find((n) => text.includes(n));
        if (hit) found.push(`${table}: ${secret.slice(0, 11)}... (matched "${hit}")`);
      }
      const base64 = Buffer.from(secret).toString('base64');
      if (all.includes(base64.slice(0, 40))) found.push(`${secret.slice(0, 11)}...: stored as base64`);
      if (secret.startsWith('whsec_')) {
        // A signing secret cannot be a hash: it is stored sealed (AES-256-GCM) and must open to itself.
        const sealed = (await (await getDb()).select({ secret: webhookEndpoints.secret }).from(webhookEndpoints)).map((r) => r.secret);
        if (!sealed.some((v) => v.startsWith('{') && opensTo(v, secret))) found.push(`${secret.slice(0, 11)}...: not stored sealed`);
      } else if (!all.includes(hashSecret(secret))) found.push(`${secret.slice(0, 11)}...: its SHA-256 is stored nowhere (where does it live?)`);
    }
    expect(found).toEqual([]);
  });
});

describe('/public bodies', () => {
  it('contain no UUID-shaped string (no internal ids), on success, on every error and on the HTML page', () => {
    expect(publicResponses.length).toBeGreaterThanOrEqual(20);
    const statuses = new Set(publicResponses.map((p) => p.res.status));
    for (const s of [200, 201, 400, 404, 405, 409, 415]) expect(statuses, `no /public response with status ${s} was checked`).toContain(s);
    const leaks = publicResponses.filter((p) => UUID.test(p.res.text)).map((p) => `${p.label} -> ${p.res.status}: ${UUID.exec(p.res.text)![0]}`);
    expect(leaks).toEqual([]);
  });
});
