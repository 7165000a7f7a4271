import { openDb, type Db, type DbHandle } from '@/db/client';
export type { Db, DbHandle, Executor } from '@/db/client';
import { getConfig } from './config';
import { enableVerifiedKeys } from './domain/verifiedKeys';

const g = globalThis as unknown as { __schedulerDb?: Promise<DbHandle> };

/**
 * The process-wide database, opened and migrated once from the service
 * configuration (DATABASE_URL, else the embedded PGlite; docs/operations.md).
 * Kept on globalThis so Next's separately bundled route modules share it.
 */
export function getDbHandle(): Promise<DbHandle> {
  if (!g.__schedulerDb) {
    const c = getConfig();
    g.__schedulerDb = openDb({
      databaseUrl: c.databaseUrl,
      dbDriver: c.dbDriver,
      pgliteDir: c.pgliteDir,
      pgliteTemplate: c.pgliteTemplate,
      dbPoolMax: c.dbPoolMax,
      migrationsDir: c.migrationsDir,
      prepare: c.databasePrepare,
      directUrl: c.databaseDirectUrl,
    })
      .then((handle) => {
        // Verified API keys kept in memory, dropped on every change the database announces (docs/architecture.md "API keys").
        enableVerifiedKeys(handle);
        return handle;
      })
      .catch((err) => {
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
