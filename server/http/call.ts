import type { Db } from '@/server/db';
import type { AgentActor } from '@/server/domain/access';
import type { KeyAnswer } from '@/server/domain/claims';
import { withCallerTimes } from '@/server/domain/callerZone';
import { drainNotifications, type NotificationItem } from '@/server/domain/notificationService';
import { getConfig, type Config } from '@/server/config';
import { log } from '@/server/log';
import { clientIpOf } from '@/server/request';
import type { AnyOperation } from './operation';

/**
 * One REST call on its way through the wrapper's steps (server/http/pipeline.ts): what the
 * request is, and what the steps have settled so far (the database, the agent, the caller's
 * zone, the claimed Idempotency-Key), which the later steps and the error answer read.
 */
export type Call = {
  readonly op: AnyOperation;
  readonly req: Request;
  /** The response headers, filled as the steps go (request id, rate limit, replay, the handler's own). */
  readonly headers: Headers;
  readonly now: Date;
  readonly requestId: string;
  readonly url: URL;
  readonly clientIp: string;
  readonly config: Config;
  readonly bearer: string | null;
  /** The Idempotency-Key header as sent (handed to the handler; only a mutating API-key call claims it). */
  readonly idempotencyKey: string | null;
  db?: Db;
  /** The calling agent, once authenticated (API-key operations). */
  actor: AgentActor | null;
  /** The caller's zone (docs/api.md "The caller's time zone"): the key's or agent's display_time_zone, then the call's time_zone. */
  zone: string | null;
  /** The claimed Idempotency-Key's record, where the answer is stored. */
  key: KeyAnswer | null;
};

export function newCall(op: AnyOperation, req: Request, headers: Headers): Call {
  const config = getConfig();
  return {
    op,
    req,
    headers,
    now: new Date(),
    requestId: headers.get('x-request-id')!,
    url: new URL(req.url),
    clientIp: clientIpOf(req, config.trustProxy),
    config,
    bearer: bearerToken(req),
    idempotencyKey: req.headers.get('idempotency-key'),
    actor: null,
    zone: null,
    key: null,
  };
}

/** A value as answered to this caller: with the caller's twins when the call has a zone. */
export function present<T>(call: Call, value: T): T {
  return call.zone ? withCallerTimes(value, call.zone) : value;
}

export function bearerToken(req: Request): string | null {
  const h = req.headers.get('authorization');
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

/** The agent's pending notifications, drained into an error answer (none when draining fails: the answer goes out anyway). */
export async function drain(db: Db, actor: AgentActor): Promise<NotificationItem[]> {
  try {
    return await drainNotifications(db, actor.agentId);
  } catch (err) {
    log.error('draining notifications failed', { agentId: actor.agentId, err });
    return [];
  }
}
