import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { requesterCredentials } from '@/db/schema';
import { hashSecret, newId } from '@/server/domain/ids';
import { audienceMembership } from '@/server/domain/publicScheduling/admin';
import { startDnsServer, type DnsServer } from '../../helpers/dnsServer';
import { expectEnvelope, type TestCustomer } from '../../helpers/app';
import { call, P, setupCustomer, uniqueDomain } from './helpers';

let admin: TestCustomer & { ownerEmail: string };
let foreign: TestCustomer & { ownerEmail: string };
let dns: DnsServer;
const savedResolver = process.env.DNS_RESOLVER;
beforeAll(async () => {
  admin = await setupCustomer();
  foreign = await setupCustomer();
  dns = await startDnsServer();
  // getConfig() reads the environment on every call; the verify operation passes it to the resolver.
  process.env.DNS_RESOLVER = dns.address;
});
afterAll(async () => {
  if (savedResolver === undefined) delete process.env.DNS_RESOLVER;
  else process.env.DNS_RESOLVER = savedResolver;
  await dns?.close();
});

async function addDomain(c: TestCustomer, domain = uniqueDomain()) {
  const res = await call('POST', `${P}/domains`, { key: c.key, body: { domain } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body as { domain_id: string; domain: string; challenge: { record_name: string; record_value: string } };
}

/** A domain verified through the test DNS server. */
async function verifiedDomain(c: TestCustomer) {
  const d = await addDomain(c);
  dns.setTxt(d.challenge.record_name, d.challenge.record_value);
  const res = await call('POST', `${P}/domains/${d.domain_id}/verify`, { key: c.key });
  if (res.status !== 200) throw new Error(res.text);
  return d;
}

describe('verified domains', () => {
  it('creates a pending domain with its DNS challenge, normalizing the name', async () => {
    const name = uniqueDomain();
    const res = await call('POST', `${P}/domains`, { key: admin.key, body: { domain: ` ${name.toUpperCase()}. ` } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ domain: name, status: 'pending', verified_at: null });
    expect(res.body.challenge.record_name).toBe(`_scheduler-challenge.${name}`);
    expect(res.body.challenge.record_value).toMatch(/^scheduler-verification=[A-Za-z0-9_-]{22,}$/);
    expectEnvelope(await call('POST', `${P}/domains`, { key: admin.key, body: { domain: name } }), 409, 'duplicate_domain');
    // another customer may claim the same domain (each proves it for itself)
    expect((await call('POST', `${P}/domains`, { key: foreign.key, body: { domain: name } })).status).toBe(201);
    const idn = await call('POST', `${P}/domains`, { key: admin.key, body: { domain: `bücher-${newId().slice(-6)}.example` } });
    expect(idn.body.domain).toMatch(/^xn--/);
    const list = await call('GET', `${P}/domains`, { key: admin.key });
    expect(list.body.domains.map((d: { domain: string }) => d.domain)).toContain(name);
  });

  it('refuses invalid domains with 400 invalid_domain', async () => {
    for (const domain of ['', 'localhost', 'https://example.com', 'example.com/path', 'example.com:443', '*.example.com', 'exa mple.com', '-bad.example.com', 'bad-.example.com', 'a..b.com', '10.0.0.1', `${'a'.repeat(64)}.com`, `${'abcdefghi.'.repeat(26)}com`, 'user@example.com', 'under_score.example.com']) {
      expectEnvelope(await call('POST', `${P}/domains`, { key: admin.key, body: { domain } }), 400, 'invalid_domain');
    }
  });

  it('verifies through a real DNS exchange: exact record -> verified; missing, wrong or failing -> 422', async () => {
    const d = await addDomain(admin);
    const verify = () => call('POST', `${P}/domains/${d.domain_id}/verify`, { key: admin.key });
    let err = expectEnvelope(await verify(), 422, 'domain_not_verified');
    expect(err.message).toContain(d.challenge.record_name);
    expect(err.message).toContain(d.challenge.record_value);
    expect(err.message).toContain('no TXT record');

    dns.setTxt(d.challenge.record_name, ['v=spf1 -all', `${d.challenge.record_value}x`, 'scheduler-verification=wrong']);
    err = expectEnvelope(await verify(), 422, 'domain_not_verified');
    expect(err.message).toContain('none equal');

    dns.failWith(d.challenge.record_name, 2); // SERVFAIL
    err = expectEnvelope(await verify(), 422, 'domain_not_verified');
    expect(err.message).toContain('look-up failed');

    const queriesBefore = dns.queries.length;
    dns.setTxt(d.challenge.record_name, ['v=spf1 -all', d.challenge.record_value]);
    const ok = await verify();
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ domain_id: d.domain_id, status: 'verified' });
    expect(typeof ok.body.verified_at).toBe('string');
    expect(dns.queries.slice(queriesBefore)).toContain(d.challenge.record_name);
    // already verified: stays verified
    dns.remove(d.challenge.record_name);
    expect((await verify()).body.status).toBe('verified');
  });

  it('answers 422 (never 5xx) when the resolver cannot be reached', async () => {
    const d = await addDomain(admin);
    const saved = process.env.DNS_RESOLVER;
    process.env.DNS_RESOLVER = '127.0.0.1:1';
    try {
      expectEnvelope(await call('POST', `${P}/domains/${d.domain_id}/verify`, { key: admin.key }), 422, 'domain_not_verified');
    } finally {
      process.env.DNS_RESOLVER = saved;
    }
  });

  it('deletes unused domains; one used by identities or audience members is 409 domain_in_use', async () => {
    const unused = await addDomain(admin);
    const del = await call('DELETE', `${P}/domains/${unused.domain_id}`, { key: admin.key });
    expect(del.status).toBe(200);
    expect(del.body.domain_id).toBe(unused.domain_id);
    expectEnvelope(await call('DELETE', `${P}/domains/${unused.domain_id}`, { key: admin.key }), 404, 'not_found');

    const byIdentity = await verifiedDomain(admin);
    const identity = await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email: `ann@${byIdentity.domain}` } });
    expect(identity.body.domain).toBe(byIdentity.domain);
    expectEnvelope(await call('DELETE', `${P}/domains/${byIdentity.domain_id}`, { key: admin.key }), 409, 'domain_in_use');

    const byAudience = await verifiedDomain(admin);
    const aud = await call('POST', `${P}/audiences`, { key: admin.key, body: { name: `aud-${newId().slice(-6)}`, members: [{ domain: byAudience.domain }] } });
    expect(aud.status).toBe(201);
    expectEnvelope(await call('DELETE', `${P}/domains/${byAudience.domain_id}`, { key: admin.key }), 409, 'domain_in_use');
    // once the audience no longer uses it, it can go
    await call('PATCH', `${P}/audiences/${aud.body.audience_id}`, { key: admin.key, body: { members: [] } });
    expect((await call('DELETE', `${P}/domains/${byAudience.domain_id}`, { key: admin.key })).status).toBe(200);
  });

  it('answers 404 not_found for foreign and unknown domain ids', async () => {
    const theirs = await addDomain(foreign);
    for (const id of [theirs.domain_id, newId(), 'nope']) {
      expectEnvelope(await call('POST', `${P}/domains/${id}/verify`, { key: admin.key }), 404, 'not_found');
      expectEnvelope(await call('DELETE', `${P}/domains/${id}`, { key: admin.key }), 404, 'not_found');
    }
    const list = await call('GET', `${P}/domains`, { key: admin.key });
    expect(list.body.domains.some((d: { domain_id: string }) => d.domain_id === theirs.domain_id)).toBe(false);
  });
});

describe('requester identities and credentials', () => {
  it('creates identities (201), answers an existing email with 200, and ties verified domains', async () => {
    const email = `req.${newId().slice(-8)}@outside.example`;
    const res = await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email: email.toUpperCase() } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email, domain: null });
    const again = await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email } });
    expect(again.status).toBe(200);
    expect(again.body.identity_id).toBe(res.body.identity_id);
    // the same email is a separate identity in another customer
    const theirs = await call('POST', `${P}/requester-identities`, { key: foreign.key, body: { email } });
    expect(theirs.status).toBe(201);
    expect(theirs.body.identity_id).not.toBe(res.body.identity_id);
    const list = await call('GET', `${P}/requester-identities`, { key: admin.key });
    expect(list.body.requester_identities.map((i: { identity_id: string }) => i.identity_id)).toContain(res.body.identity_id);
  });

  it('refuses an identity under a domain whose challenge is pending (422 domain_not_verified)', async () => {
    const pending = await addDomain(admin);
    expectEnvelope(await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email: `bob@${pending.domain}` } }), 422, 'domain_not_verified');
    dns.setTxt(pending.challenge.record_name, pending.challenge.record_value);
    expect((await call('POST', `${P}/domains/${pending.domain_id}/verify`, { key: admin.key })).status).toBe(200);
    const ok = await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email: `bob@${pending.domain}` } });
    expect(ok.status).toBe(201);
    expect(ok.body.domain).toBe(pending.domain);
  });

  it('mints rc_ credentials shown once and stored only as hashes; revokes them', async () => {
    const identity = await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email: `cred.${newId().slice(-8)}@outside.example` } });
    const id = identity.body.identity_id;
    const minted = await call('POST', `${P}/requester-identities/${id}/credentials`, { key: admin.key, idempotencyKey: `mint-${id}` });
    expect(minted.status).toBe(201);
    const secret: string = minted.body.requester_credential;
    expect(secret).toMatch(/^rc_[A-Za-z0-9_-]{43}$/);
    expect(minted.body).toMatchObject({ identity_id: id, prefix: secret.slice(0, 11) });

    // an idempotent replay never shows the secret again
    const replay = await call('POST', `${P}/requester-identities/${id}/credentials`, { key: admin.key, idempotencyKey: `mint-${id}` });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual({ ...minted.body, requester_credential: null });

    // the plaintext is in no table; its hash is
    const db = await getDb();
    const [row] = await db.select().from(requesterCredentials).where(eq(requesterCredentials.id, minted.body.credential_id));
    expect(row.tokenHash).toBe(hashSecret(secret));
    expect(row.prefix).toBe(secret.slice(0, 11));
    expect(await tablesContaining(secret)).toEqual([]);
    expect(await tablesContaining(secret.slice(3))).toEqual([]);
    expect(await tablesContaining(hashSecret(secret))).toEqual(['requester_credentials.token_hash']); // the scan sees what is there

    const revoked = await call('DELETE', `${P}/requester-identities/${id}/credentials/${minted.body.credential_id}`, { key: admin.key });
    expect(revoked.status).toBe(200);
    expect(typeof revoked.body.revoked_at).toBe('string');
    const twice = await call('DELETE', `${P}/requester-identities/${id}/credentials/${minted.body.credential_id}`, { key: admin.key });
    expect(twice.body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it('answers 404 not_found for foreign and unknown identities and credentials', async () => {
    const theirs = await call('POST', `${P}/requester-identities`, { key: foreign.key, body: { email: `t.${newId().slice(-8)}@outside.example` } });
    const theirCred = await call('POST', `${P}/requester-identities/${theirs.body.identity_id}/credentials`, { key: foreign.key });
    const mine = await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email: `m.${newId().slice(-8)}@outside.example` } });
    for (const id of [theirs.body.identity_id, newId(), 'nope']) {
      expectEnvelope(await call('POST', `${P}/requester-identities/${id}/credentials`, { key: admin.key }), 404, 'not_found');
      expectEnvelope(await call('DELETE', `${P}/requester-identities/${id}/credentials/${theirCred.body.credential_id}`, { key: admin.key }), 404, 'not_found');
    }
    for (const cred of [theirCred.body.credential_id, newId(), 'nope']) {
      expectEnvelope(await call('DELETE', `${P}/requester-identities/${mine.body.identity_id}/credentials/${cred}`, { key: admin.key }), 404, 'not_found');
    }
  });
});

describe('audiences', () => {
  it('creates, lists, renames, replaces members and deletes; membership by email or verified domain', async () => {
    const d = await verifiedDomain(admin);
    const name = `partners-${newId().slice(-6)}`;
    const res = await call('POST', `${P}/audiences`, {
      key: admin.key,
      body: { name, members: [{ email: 'Pat@Partner.Example' }, { domain: d.domain.toUpperCase() }, { email: 'pat@partner.example' }] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name, members: [{ email: 'pat@partner.example' }, { domain: d.domain }] });
    const db = await getDb();
    const id = res.body.audience_id;
    expect(await audienceMembership(db, id, { email: 'PAT@partner.example' })).toBe(true);
    expect(await audienceMembership(db, id, { email: `anyone@${d.domain}` })).toBe(true);
    expect(await audienceMembership(db, id, { email: `anyone@sub.${d.domain}` })).toBe(false);
    expect(await audienceMembership(db, id, { email: 'stranger@elsewhere.example' })).toBe(false);

    expectEnvelope(await call('POST', `${P}/audiences`, { key: admin.key, body: { name, members: [] } }), 409, 'duplicate_audience');
    expect((await call('POST', `${P}/audiences`, { key: foreign.key, body: { name, members: [] } })).status).toBe(201);
    const other = await call('POST', `${P}/audiences`, { key: admin.key, body: { name: `${name}-2`, members: [] } });
    expectEnvelope(await call('PATCH', `${P}/audiences/${other.body.audience_id}`, { key: admin.key, body: { name } }), 409, 'duplicate_audience');

    const replaced = await call('PATCH', `${P}/audiences/${id}`, { key: admin.key, body: { name: `${name}-new`, members: [{ email: 'new@partner.example' }] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: `${name}-new`, members: [{ email: 'new@partner.example' }] });
    expect(await audienceMembership(db, id, { email: 'pat@partner.example' })).toBe(false);
    const renamedOnly = await call('PATCH', `${P}/audiences/${id}`, { key: admin.key, body: { name } });
    expect(renamedOnly.body.members).toEqual([{ email: 'new@partner.example' }]);

    const list = await call('GET', `${P}/audiences`, { key: admin.key });
    expect(list.body.audiences.find((a: { audience_id: string }) => a.audience_id === id)).toMatchObject({ name });
    expect((await call('DELETE', `${P}/audiences/${id}`, { key: admin.key })).status).toBe(200);
    expectEnvelope(await call('DELETE', `${P}/audiences/${id}`, { key: admin.key }), 404, 'not_found');
  });

  it('domain members must be verified domains of the customer', async () => {
    const pending = await addDomain(admin);
    const theirs = await verifiedDomain(foreign);
    const post = (members: unknown[]) => call('POST', `${P}/audiences`, { key: admin.key, body: { name: `a-${newId().slice(-8)}`, members } });
    expectEnvelope(await post([{ domain: pending.domain }]), 422, 'domain_not_verified');
    expectEnvelope(await post([{ domain: uniqueDomain('unknown') }]), 404, 'not_found');
    expectEnvelope(await post([{ domain: theirs.domain }]), 404, 'not_found');
    expectEnvelope(await post([{ domain: 'not a domain' }]), 400, 'invalid_domain');
    expectEnvelope(await post([{ email: 'x@y.example', domain: 'y.example' }]), 400, 'invalid_request');
    const ok = await post([]);
    expectEnvelope(await call('PATCH', `${P}/audiences/${ok.body.audience_id}`, { key: admin.key, body: { members: [{ domain: pending.domain }] } }), 422, 'domain_not_verified');
  });

  it('answers 404 not_found for foreign and unknown audience ids', async () => {
    const theirs = await call('POST', `${P}/audiences`, { key: foreign.key, body: { name: `t-${newId().slice(-8)}`, members: [] } });
    for (const id of [theirs.body.audience_id, newId(), 'nope']) {
      expectEnvelope(await call('PATCH', `${P}/audiences/${id}`, { key: admin.key, body: { members: [] } }), 404, 'not_found');
      expectEnvelope(await call('DELETE', `${P}/audiences/${id}`, { key: admin.key }), 404, 'not_found');
    }
  });
});

/** Every table and text/json column whose value contains `needle` (the secret-at-rest scan). */
async function tablesContaining(needle: string): Promise<string[]> {
  const db = await getDb();
  const cols = (await db.execute(sql`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' and data_type in ('text', 'character varying', 'jsonb', 'json')`)) as unknown as
    | { rows: { table_name: string; column_name: string }[] }
    | { table_name: string; column_name: string }[];
  const rows = Array.isArray(cols) ? cols : cols.rows;
  const hits: string[] = [];
  for (const { table_name, column_name } of rows) {
    const found = (await db.execute(sql`select 1 from ${sql.identifier(table_name)} where ${sql.identifier(column_name)}::text like ${'%' + needle + '%'} limit 1`)) as unknown as
      | { rows: unknown[] }
      | unknown[];
    if ((Array.isArray(found) ? found : found.rows).length) hits.push(`${table_name}.${column_name}`);
  }
  return hits;
}
