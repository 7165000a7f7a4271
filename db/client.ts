import type { DbConfig, DbHandle } from './types';

export type { Db, DbConfig, DbHandle, Executor, Tx } from './types';

/**
 * Opens and migrates a database: PostgreSQL through postgres.js when
 * `databaseUrl` is set; otherwise the embedded PGlite (persisted under
 * `pgliteDir`, or in memory with `dbDriver: 'pglite-memory'`). The
 * process-wide instance, built from the service configuration, is
 * server/db.ts's `getDb()`; db/ itself reads no configuration.
 */
export async function openDb(config: DbConfig): Promise<DbHandle> {
  if (config.databaseUrl) {
    const { openPostgres } = await import('./drivers/postgres');
    return openPostgres(config.databaseUrl, config.dbPoolMax, config.migrationsDir, { prepare: config.prepare ?? true, directUrl: config.directUrl });
  }
  const { openPglite } = await import('./drivers/pglite');
  return config.dbDriver === 'pglite-memory'
    ? openPglite(undefined, config.migrationsDir, config.pgliteTemplate)
    : openPglite(config.pgliteDir, config.migrationsDir);
}
