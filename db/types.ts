import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type * as schema from './schema';

type Schema = typeof schema;
/** A Drizzle database on either driver (PGlite or postgres.js). */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything queries can run on: the database or an open transaction. */
export type Executor = Db | Tx;

export type DbHandle = {
  db: Db;
  driver: 'postgres' | 'pglite';
  /** Run a raw SQL string (tests, scripts). */
  exec(sqlText: string): Promise<void>;
  /**
   * Is the database reachable? On PostgreSQL this uses a connection of its
   * own, outside the pool, so a pool busy with queued transactions does not
   * read as an outage.
   */
  ping(): Promise<void>;
  /**
   * Subscribe to NOTIFY on `channel` (docs/architecture.md "API keys"). `onState(true)` once
   * listening and again after every reconnection; `onState(false)` when the listening
   * connection is lost, since notifications sent meanwhile are missed. On PostgreSQL this uses
   * a connection of its own (opened on the first call, reconnected with back-off, closed by
   * close()). Resolves to the unsubscribe.
   */
  listen(channel: string, onNotify: (payload: string) => void, onState: (live: boolean) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
};

/** Where the database is; built from the service configuration by server/db.ts. */
export type DbConfig = {
  /** PostgreSQL via postgres.js when set; otherwise the embedded PGlite. */
  databaseUrl?: string;
  /** `pglite-memory` keeps the embedded database in memory (tests). */
  dbDriver?: string;
  pgliteDir: string;
  /**
   * A migrated embedded database dumped to a file (db/drivers/pgliteTemplate.ts): an in-memory
   * PGlite starts from it instead of running every migration. Ignored when the file is missing.
   */
  pgliteTemplate?: string;
  dbPoolMax: number;
  migrationsDir: string;
  /** Named prepared statements (false behind a transaction pooler); default true. */
  prepare?: boolean;
  /** Session work (migration lock, LISTEN) connects here; default databaseUrl. */
  directUrl?: string;
};
