import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import * as schema from '../schema';
import type { Db, DbHandle } from '../types';
import { statementTracer } from '../tracing';
import { isPgliteLockedError, PgliteLockedError, type PgliteLockHolder } from './pgliteLocked';
import { HOT_STATEMENT } from './hotStatement';
import { pglitePrepared } from './pglitePrepared';

/**
 * The embedded default. btree_gist must be loaded on every open (the
 * exclusion constraint needs it), and migrations are applied here because
 * drizzle-kit's own migrate fails silently with btree_gist on PGlite.
 * `dataDir` undefined keeps the database in memory.
 *
 * A persisted PGlite is single-process: a second process opening the same
 * directory corrupts it. Opening therefore takes a lock file next to the
 * directory (`<dataDir>.lock`, see acquirePgliteLock) and fails with
 * PgliteLockedError while another live process holds it.
 */
export async function openPglite(dataDir: string | undefined, migrationsFolder: string, template?: string): Promise<DbHandle> {
  const release = dataDir ? acquirePgliteLock(dataDir) : () => {};
  try {
    if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
    // An in-memory database may start from a migrated dump (./pgliteTemplate.ts); migrate below then finds nothing to do.
    const loadDataDir = !dataDir && template ? readTemplate(template) : undefined;
    const client = await PGlite.create({ dataDir, extensions: { btree_gist }, loadDataDir });
    try {
      // No `schema`: no relational queries are used (see drivers/postgres.ts).
      const db = drizzle(traced(client, pglitePrepared(client))) as unknown as Db;
      await migrate(drizzle(client, { schema }), { migrationsFolder });
      return {
        db,
        driver: 'pglite',
        exec: async (text) => {
          await client.exec(text);
        },
        ping: async () => {
          await client.query('select 1');
        },
        // One process owns an embedded database: a notification arrives while the statement that sent it is answered.
        listen: async (channel, onNotify, onState) => {
          const unlisten = await client.listen(channel, onNotify);
          onState(true);
          return async () => {
            if (!client.closed) await unlisten();
          };
        },
        close: async () => {
          try {
            await client.close();
          } finally {
            release();
          }
        },
      };
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Migrates a fresh in-memory database and dumps it to `file` (written aside, then renamed, so a
 * reader never sees half of it): the template in-memory databases start from (the test runs'
 * global setup writes it once; docs/testing.md "Embedded database template").
 */
export async function writePgliteTemplate(file: string, migrationsFolder: string): Promise<void> {
  const client = await PGlite.create({ extensions: { btree_gist } });
  try {
    await migrate(drizzle(client, { schema }), { migrationsFolder });
    const dump = await client.dumpDataDir('none');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const aside = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(aside, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(aside, file);
  } finally {
    await client.close();
  }
}

/** The template's dump, or undefined when it is missing (a fresh database is migrated instead). */
function readTemplate(file: string): Blob | undefined {
  try {
    return new Blob([fs.readFileSync(file)]);
  } catch {
    return undefined;
  }
}

/**
 * The client drizzle is handed: every statement it sends (`query`, also inside `transaction`)
 * passes the statement hook (../tracing.ts), one branch while tracing is off; the client and
 * each transaction also offer the prepared path of db/hot statements under HOT_STATEMENT
 * (./pglitePrepared.ts), which passes the same hook.
 */
type QueryClient = Pick<PGlite, 'query'> & Partial<Pick<PGlite, 'transaction'>>;
type Prepared = ReturnType<typeof pglitePrepared>;
function traced<C extends QueryClient>(client: C, prepared: Prepared, hot = prepared.root): C {
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'query') {
        return (text: string, ...rest: unknown[]) => {
          const issue = () => (target.query as (t: string, ...r: unknown[]) => Promise<unknown>)(text, ...rest);
          return statementTracer ? statementTracer(text, issue) : issue();
        };
      }
      if (prop === HOT_STATEMENT) {
        return (text: string, params: Parameters<typeof hot>[1], opts: Parameters<typeof hot>[2]) => {
          const issue = () => hot(text, params, opts);
          return statementTracer ? statementTracer(text, issue) : issue();
        };
      }
      if (prop === 'transaction' && target.transaction) {
        return (fn: (tx: QueryClient) => Promise<unknown>) => target.transaction!((tx) => fn(traced(tx, prepared, prepared.forTransaction(tx))));
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// ---------------------------------------------------------------------------
// Single-process lock for a persisted PGlite directory.

export { isPgliteLockedError };

/** `<dataDir>.lock`, beside the directory (not inside it: PGlite owns its contents). */
function pgliteLockFile(dataDir: string): string {
  return path.resolve(dataDir).replace(/[\\/]+$/, '') + '.lock';
}

/** This process's open locks with a reference count (on globalThis: Next.js may load this module more than once). */
const HELD = Symbol.for('agent-scheduler.pgliteLocks');
type GlobalWithLocks = typeof globalThis & { [HELD]?: Map<string, number> };
function heldLocks(): Map<string, number> {
  const g = globalThis as GlobalWithLocks;
  if (!g[HELD]) {
    g[HELD] = new Map();
    // Best effort on any exit (including process.exit); a killed process leaves a stale file, which the next opener detects.
    process.once('exit', () => {
      for (const file of g[HELD]!.keys()) removeIfOurs(file);
    });
  }
  return g[HELD]!;
}

/**
 * Take the lock for `dataDir`, or throw PgliteLockedError if a live process
 * holds it. Re-entrant within one process. A lock left by a process that no
 * longer runs (same host) is replaced. Returns the release function.
 */
export function acquirePgliteLock(dataDir: string): () => void {
  const file = pgliteLockFile(dataDir);
  const held = heldLocks();
  const count = held.get(file);
  if (count) {
    held.set(file, count + 1);
    return once(() => releaseLock(file));
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const me: PgliteLockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    started_at: new Date().toISOString(),
    command: process.argv.slice(1).map((a) => path.relative(process.cwd(), a) || a).join(' ').slice(0, 200),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me) + '\n', { flag: 'wx' });
      held.set(file, 1);
      return once(() => releaseLock(file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readLock(file);
    if (holder === 'unreadable') {
      // Possibly being written right now: wait briefly unless it is old.
      if (ageMs(file) < 5000) throw new PgliteLockedError(dataDir, file, null);
    } else if (holder) {
      if (holder.pid === process.pid && holder.hostname === me.hostname) {
        // Ours from an earlier open whose release did not run; take it over.
        held.set(file, 1);
        return once(() => releaseLock(file));
      }
      if (holder.hostname !== me.hostname || isAlive(holder.pid)) throw new PgliteLockedError(dataDir, file, holder);
    }
    // Stale (its process is gone) or vanished: remove and try again.
    fs.rmSync(file, { force: true });
  }
  throw new PgliteLockedError(dataDir, file, null);
}

function releaseLock(file: string): void {
  const held = heldLocks();
  const count = held.get(file) ?? 0;
  if (count > 1) {
    held.set(file, count - 1);
    return;
  }
  held.delete(file);
  removeIfOurs(file);
}

function removeIfOurs(file: string): void {
  try {
    const holder = readLock(file);
    if (holder && holder !== 'unreadable' && holder.pid === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // best effort
  }
}

function readLock(file: string): PgliteLockHolder | 'unreadable' | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const v = JSON.parse(text) as PgliteLockHolder;
    return typeof v.pid === 'number' ? v : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
