import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type DbHandle } from '@/db/client';
import { getConfig } from '@/server/config';
import { getDb, getDbHandle } from '@/server/db';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { hashSecret } from '@/server/domain/ids';
import { enableVerifiedKeys, verifiedKeysOf } from '@/server/domain/verifiedKeys';
import { api, driver, expectEnvelope, newAgent, newCustomer } from '../../helpers/app';

/**
 * Verified API keys kept in memory (server/domain/verifiedKeys.ts, docs/architecture.md
 * "API keys"): a key is answered from memory once verified, and refused as soon as it is
 * revoked or its agent disabled, whether the change came through this instance, through
 * another one, or straight into the database.
 */
const others: DbHandle[] = [];
afterAll(async () => {
  for (const h of others) await h.close();
});

const cached = async (key: string) => verifiedKeysOf(await getDb())!.get(hashSecret(key), Date.now()) !== undefined;
const callWith = (key: string) => api('GET', '/v1/notifications', { key });

/** Polls `check` until it holds; how many looks failed before it did, or a failure after `withinMs`. */
async function within(withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  let misses = 0;
  while (!(await check())) {
    if (Date.now() - t0 > withinMs) throw new Error(`not within ${withinMs} ms`);
    misses++;
    await new Promise((r) => setTimeout(r, 2));
  }
  return misses;
}

describe('verified API keys in memory', () => {
  it('a verified key is kept, and refused on the request right after its revocation through the service', async () => {
    const admin = await newCustomer();
    const agent = await newAgent(admin, ['create_holds']);
    expect((await callWith(agent.key)).status).toBe(200);
    await within(5000, () => cached(agent.key)); // the feed is heard (LISTEN answered), the key kept
    expect((await callWith(agent.key)).status).toBe(200);
    const me = await api('GET', '/v1/agents/me', { key: agent.key });
    const revoke = await api('DELETE', `/v1/agents/${agent.agentId}/keys/${me.body.key_id}`, { key: admin.key });
    expect(revoke.status).toBe(200);
    expectEnvelope(await callWith(agent.key), 401, 'api_key_revoked');
    expect(await cached(agent.key)).toBe(false);
  });

  it('a disabled agent is refused on the next request, and accepted again once enabled', async () => {
    const admin = await newCustomer();
    const agent = await newAgent(admin, ['create_holds']);
    expect((await callWith(agent.key)).status).toBe(200);
    await within(5000, () => cached(agent.key));
    expect((await api('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { disabled: true } })).status).toBe(200);
    expectEnvelope(await callWith(agent.key), 401, 'agent_disabled');
    expect((await api('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { disabled: false } })).status).toBe(200);
    expect((await callWith(agent.key)).status).toBe(200);
  });

  it('a narrowed permission applies on the next request', async () => {
    const admin = await newCustomer();
    const agent = await newAgent(admin, ['read_availability', 'create_holds']);
    expect((await api('GET', '/v1/meeting-classes', { key: agent.key })).status).toBe(200);
    await within(5000, () => cached(agent.key));
    expect((await api('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { permissions: ['create_holds'] } })).status).toBe(200);
    expect((await api('GET', '/v1/meeting-classes', { key: agent.key })).status).toBe(403);
  });

  it('a change written straight into the database (no service code) is heard: revoked key and disabled agent refused', async () => {
    const admin = await newCustomer();
    const a = await newAgent(admin, ['create_holds']);
    const b = await newAgent(admin, ['create_holds']);
    for (const k of [a.key, b.key]) {
      expect((await callWith(k)).status).toBe(200);
      await within(5000, () => cached(k));
    }
    const handle = await getDbHandle();
    await handle.exec(`update api_keys set revoked_at = now() where key_hash = '${hashSecret(a.key)}'`);
    await handle.exec(`update agents set disabled = true where id = '${b.agentId}'`);
    // PGlite hands the notification over while the UPDATE is answered; PostgreSQL sends it at
    // commit on the listening connection: heard within milliseconds, never after the entry's 30 s.
    // On PGlite the first look already finds both gone (no wait; counted in looks, not in
    // milliseconds, which a look can cross).
    const misses = await within(1000, async () => !(await cached(a.key)) && !(await cached(b.key)));
    if ((await driver()) === 'pglite') expect(misses).toBe(0);
    expectEnvelope(await callWith(a.key), 401, 'api_key_revoked');
    expectEnvelope(await callWith(b.key), 401, 'agent_disabled');
  });

  it("a display_time_zone written straight into the database (key's or agent's) is heard: the next answer uses it (migration 0031)", async () => {
    const admin = await newCustomer();
    const a = await newAgent(admin, ['create_holds']);
    expect((await callWith(a.key)).status).toBe(200);
    await within(5000, () => cached(a.key));
    const handle = await getDbHandle();
    await handle.exec(`update agents set display_time_zone = 'America/New_York' where id = '${a.agentId}'`);
    await within(1000, async () => !(await cached(a.key)));
    expect((await api('GET', '/v1/agents/me', { key: a.key })).body).toMatchObject({ display_time_zone: 'America/New_York', key_display_time_zone: null });
    await within(5000, () => cached(a.key));
    expect(verifiedKeysOf(await getDb())!.get(hashSecret(a.key), Date.now())?.displayTimeZone).toBe('America/New_York');
    await handle.exec(`update api_keys set display_time_zone = 'Asia/Tokyo' where key_hash = '${hashSecret(a.key)}'`);
    await within(1000, async () => !(await cached(a.key)));
    expect((await callWith(a.key)).status).toBe(200);
    expect((await authenticateApiKey(await getDb(), a.key, new Date())).displayTimeZone).toBe('Asia/Tokyo');
  });

  it('a second instance on the same PostgreSQL refuses a key revoked through the first', async () => {
    if ((await driver()) !== 'postgres') return; // an embedded database has one process
    const c = getConfig();
    const second = await openDb({ databaseUrl: c.databaseUrl, dbDriver: c.dbDriver, pgliteDir: c.pgliteDir, dbPoolMax: 2, migrationsDir: c.migrationsDir });
    others.push(second);
    enableVerifiedKeys(second);
    const admin = await newCustomer();
    const agent = await newAgent(admin, ['create_holds']);
    const now = () => new Date();
    await authenticateApiKey(second.db, agent.key, now());
    const secondCache = verifiedKeysOf(second.db)!;
    await within(5000, async () => {
      await authenticateApiKey(second.db, agent.key, now());
      return secondCache.get(hashSecret(agent.key), Date.now()) !== undefined;
    });
    // Through the first instance's database handle only, as another process would (no in-process hint).
    const first = await getDbHandle();
    await first.exec(`update api_keys set revoked_at = now() where key_hash = '${hashSecret(agent.key)}'`);
    await within(1000, async () => secondCache.get(hashSecret(agent.key), Date.now()) === undefined);
    await expect(authenticateApiKey(second.db, agent.key, now())).rejects.toMatchObject({ code: 'api_key_revoked' });
  });

  it('while the listening connection is lost nothing is served from memory; it is re-established', async () => {
    if ((await driver()) !== 'postgres') return;
    const admin = await newCustomer();
    const agent = await newAgent(admin, ['create_holds']);
    expect((await callWith(agent.key)).status).toBe(200);
    await within(5000, () => cached(agent.key));
    const handle = await getDbHandle();
    await handle.exec(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen "api_key_auth"%' and pid <> pg_backend_pid()`);
    await within(2000, async () => !(await cached(agent.key)));
    // Back: keys are kept again once LISTEN answers on the new connection.
    await within(5000, async () => {
      expect((await callWith(agent.key)).status).toBe(200);
      return cached(agent.key);
    });
  });
});
