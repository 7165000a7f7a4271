import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { getConfig } from '@/server/config';
import * as schema from './schema';

export type Schema = typeof schema;
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
  close(): Promise<void>;
};

const g = globalThis as unknown as { __schedulerDb?: Promise<DbHandle> };

/**
 * The process-wide database, opened and migrated once. PostgreSQL through
 * postgres.js when DATABASE_URL is set; otherwise the embedded PGlite
 * (persisted under PGLITE_DIR, or in memory with DB_DRIVER=pglite-memory).
 */
export function getDbHandle(): Promise<DbHandle> {
  if (!g.__schedulerDb) {
    g.__schedulerDb = openDb().catch((err) => {
      g.__schedulerDb = undefined;
      throw err;
    });
  }
  return g.__schedulerDb;
}

export async function getDb(): Promise<Db> {
  return (await getDbHandle()).db;
}

/** Close the process-wide database (scripts and tests). */
export async function closeDb(): Promise<void> {
  const handle = g.__schedulerDb;
  g.__schedulerDb = undefined;
  if (handle) await (await handle).close();
}

async function openDb(): Promise<DbHandle> {
  const config = getConfig();
  if (config.databaseUrl) {
    const { openPostgres } = await import('./drivers/postgres');
    return openPostgres(config.databaseUrl, config.dbPoolMax, config.migrationsDir);
  }
  const { openPglite } = await import('./drivers/pglite');
  return openPglite(config.dbDriver === 'pglite-memory' ? undefined : config.pgliteDir, config.migrationsDir);
}
