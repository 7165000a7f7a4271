import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import * as schema from '../schema';
import type { Db, DbHandle } from '../client';

/**
 * The embedded default. btree_gist must be loaded on every open (the
 * exclusion constraint needs it), and migrations are applied here because
 * drizzle-kit's own migrate fails silently with btree_gist on PGlite.
 * `dataDir` undefined keeps the database in memory.
 */
export async function openPglite(dataDir: string | undefined, migrationsFolder: string): Promise<DbHandle> {
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create({ dataDir, extensions: { btree_gist } });
  const db = drizzle(client, { schema }) as unknown as Db;
  await migrate(drizzle(client, { schema }), { migrationsFolder });
  return {
    db,
    driver: 'pglite',
    exec: async (text) => {
      await client.exec(text);
    },
    close: () => client.close(),
  };
}
