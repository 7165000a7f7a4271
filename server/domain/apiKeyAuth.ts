import type { Executor } from '@/db/client';
import { apiKeyByHash, touchApiKey } from '@/db/hot/access';
import type { AgentActor } from './access';
import { DomainError } from './errors';
import { hashSecret, SECRET_PREFIX } from './ids';
import { verifiedKeysOf } from './verifiedKeys';

/** last_used_at is refreshed at most this often per key, to keep the hot path read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Authenticate a raw `ak_` API key: look it up by hash, then check revocation
 * and the agent's state. Throws the lowercase auth codes of docs/api.md "3. Errors".
 * A key this process verified is answered from memory while the database's change feed
 * is heard (verifiedKeys.ts; docs/architecture.md "API keys").
 */
export async function authenticateApiKey(db: Executor, token: string | null, now: Date): Promise<AgentActor> {
  if (!token || !token.startsWith(SECRET_PREFIX.apiKey) || token.length > 200) {
    throw new DomainError('unknown_api_key', 'Missing or unknown API key');
  }
  const hash = hashSecret(token);
  const cache = verifiedKeysOf(db);
  let row = cache?.get(hash, now.getTime());
  if (!row) {
    const mark = cache?.mark() ?? 0;
    row = await apiKeyByHash(db, hash);
    if (!row) throw new DomainError('unknown_api_key', 'Missing or unknown API key');
    if (row.revokedAt) throw new DomainError('api_key_revoked', 'This API key has been revoked');
    if (row.disabled) throw new DomainError('agent_disabled', "This key's agent is disabled");
    cache?.put(hash, row, mark, now.getTime());
  }
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Best effort bookkeeping; never fails the request. The kept row remembers it.
    row.lastUsedAt = now;
    await touchApiKey(db, row.keyId, now).catch(() => {});
  }
  return {
    kind: 'agent',
    agentId: row.agentId,
    customerId: row.customerId,
    keyId: row.keyId,
    ownerScope: row.ownerScope,
    permissions: row.permissions,
    displayTimeZone: row.displayTimeZone,
  };
}
