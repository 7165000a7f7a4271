import path from 'node:path';
import postgres from 'postgres';
import type { DbHandle } from '@/db/client';
import { openPostgres } from '@/db/drivers/postgres';
import { driver } from './app';
import { NEEDS_POSTGRES_SESSIONS } from './skips';

/**
 * PostgreSQL connections a driver test opens itself (the service's pool of one, and a plain
 * postgres.js connection to watch or end its sessions), all closed by `closeSessions()` in the
 * file's afterAll. Without a direct PostgreSQL URL the test is skipped.
 */
export const MIGRATIONS = path.join(process.cwd(), 'db', 'migrations');
const handles: DbHandle[] = [];
const admins: postgres.Sql[] = [];

/** The PostgreSQL the test's sessions go to (not through a pooler), or the test skipped. */
export async function directUrl(ctx: { skip: (note?: string) => never }): Promise<string> {
  const url = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL;
  if ((await driver()) !== 'postgres' || !url) ctx.skip(NEEDS_POSTGRES_SESSIONS);
  return url!;
}

/** A service pool, closed with the file. */
export function keptHandle(handle: DbHandle): DbHandle {
  handles.push(handle);
  return handle;
}

/** A plain connection to `url` (no notices), closed with the file. */
export function adminConnection(url: string): postgres.Sql {
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  admins.push(admin);
  return admin;
}

/** A pool of one connection, so the next statement needs the very connection a test ends, and an admin connection. */
export async function poolOfOne(ctx: { skip: (note?: string) => never }): Promise<{ handle: DbHandle; admin: postgres.Sql; url: string }> {
  const url = await directUrl(ctx);
  return { handle: keptHandle(await openPostgres(url, 1, MIGRATIONS)), admin: adminConnection(url), url };
}

export async function closeSessions(): Promise<void> {
  for (const h of handles.splice(0)) await h.close();
  for (const a of admins.splice(0)) await a.end({ timeout: 1 });
}
