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

export type PostgresOptions = {
  /** Named prepared statements (default); false behind a transaction pooler (docs/operations.md "High availability"). */
  prepare?: boolean;
  /** Where what needs a session connects (the migration lock, LISTEN); default `url`. */
  directUrl?: string;
};

export async function openPostgres(url: string, max: number, migrationsFolder: string, opts: PostgresOptions = {}): Promise<DbHandle> {
  const prepare = opts.prepare ?? true;
  const direct = opts.directUrl ?? url;
  // Migrate on one dedicated connection that holds the advisory lock, so two
  // instances starting together do not both apply the same migration. The lock is a session's:
  // through a transaction pooler it would be taken on one server connection and the migration
  // run on others, so this connection goes to the primary directly.
  const migrator = postgres(direct, { max: 1, onnotice: () => {} });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(migrator, { schema }), { migrationsFolder });
  } finally {
    await migrator.end({ timeout: 5 });
  }
  // The service's pool sends each turn's messages in one write (./coalescingSocket.ts). The
  // `socket` option is postgres.js's documented "Custom socket", absent from its typings.
  const options = { max, prepare, onnotice: () => {}, socket: coalescingSocket };
  const sql = postgres(url, options);
  // No `schema`: the service uses no relational queries, and with one drizzle builds a query
  // builder per table for every transaction it opens.
  const db = drizzle(preparedStatements(sql, prepare)) as unknown as Db;
  let pinger: postgres.Sql | undefined;
  const listener = pgListener(direct);
  return {
    db,
    driver: 'postgres',
    exec: async (text) => {
      await sql.unsafe(text);
    },
    ping: async () => {
      // The way requests go (through the pooler when there is one), and a primary at its end:
      // a standby left behind after a failover is no database to serve from.
      pinger ??= postgres(url, { max: 1, prepare, idle_timeout: 60, connect_timeout: 5, onnotice: () => {} });
      const [row] = await pinger<{ standby: boolean }[]>`select pg_is_in_recovery() as standby`;
      if (row?.standby) throw new Error('the database is a standby (read-only): no primary');
    },
    listen: listener.listen,
    close: async () => {
      await Promise.all([sql.end({ timeout: 5 }), pinger?.end({ timeout: 1 }), listener.close()]);
    },
  };
}
