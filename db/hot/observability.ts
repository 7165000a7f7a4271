import type { Executor } from '../client';
import { queryRows } from './driver';

/**
 * Statements behind the gauges read at a metrics scrape (server/observability/gauges.ts;
 * docs/operations.md "Metrics"): the webhook outbox's depth and oldest pending row (the
 * partial index on pending rows keeps the count to the backlog), and per provider the age of
 * the stalest active mirror.
 */
const WEBHOOK_BACKLOG = `select count(*)::int as depth, coalesce(extract(epoch from ($1::timestamptz - min("created_at"))), 0)::float8 as oldest
from "webhook_deliveries" where "status" = 'pending'`;

const MIRROR_AGES = `select "type" as provider, max(extract(epoch from ($1::timestamptz - coalesce("last_synced_at", "created_at"))))::float8 as age
from "calendars" where "type" <> 'internal' and "status" = 'active' group by "type"`;

export async function webhookBacklog(db: Executor, now: Date): Promise<{ depth: number; oldestSeconds: number }> {
  const [row] = await queryRows(db, WEBHOOK_BACKLOG, [now.toISOString()]);
  return { depth: Number(row?.depth ?? 0), oldestSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}

export async function mirrorAges(db: Executor, now: Date): Promise<{ provider: string; ageSeconds: number }[]> {
  const rows = await queryRows(db, MIRROR_AGES, [now.toISOString()]);
  return rows.map((r) => ({ provider: String(r.provider), ageSeconds: Math.max(0, Number(r.age)) }));
}

/** The newest migration applied (drizzle's journal `when`, milliseconds), or null before any. */
export async function latestAppliedMigration(db: Executor): Promise<number | null> {
  const [row] = await queryRows(db, `select max("created_at") as latest from "drizzle"."__drizzle_migrations"`, []);
  return row?.latest == null ? null : Number(row.latest);
}
