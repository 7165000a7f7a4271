import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import * as schema from '../schema';
import type { Db, DbHandle } from '../types';
import { preparedStatements } from './preparedStatements';
import { pgListener } from './listener';
import { coalescingSocket } from './coalescingSocket';

/** Serialises migrations across processes sharing one PostgreSQL. */
const MIGRATION_LOCK = 72_007_001;

export async function openPostgres(url: string, max: number, migrationsFolder: string): Promise<DbHandle> {
  // Migrate on one dedicated connection that holds the advisory lock, so two
  // instances starting together do not both apply the same migration.
  const migrator = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(migrator, { schema }), { migrationsFolder });
  } finally {
    await migrator.end({ timeout: 5 });
  }
  // The service's pool sends each turn's messages in one write (./coalescingSocket.ts). The
  // `socket` option is postgres.js's documented "Custom socket", absent from its typings.
  const options = { max, onnotice: () => {}, socket: coalescingSocket };
  const sql = postgres(url, options);
  // No `schema`: the service uses no relational queries, and with one drizzle builds a query
  // builder per table for every transaction it opens.
  const db = drizzle(preparedStatements(sql)) as unknown as Db;
  let pinger: postgres.Sql | undefined;
  const listener = pgListener(url);
  return {
    db,
    driver: 'postgres',
    exec: async (text) => {
      await sql.unsafe(text);
    },
    ping: async () => {
      pinger ??= postgres(url, { max: 1, idle_timeout: 60, connect_timeout: 5, onnotice: () => {} });
      await pinger`select 1`;
    },
    listen: listener.listen,
    close: async () => {
      await Promise.all([sql.end({ timeout: 5 }), pinger?.end({ timeout: 1 }), listener.close()]);
    },
  };
}
