import os from 'node:os';

// The embedded database's "in use by another process" error, kept apart from ./pglite.ts so a
// server on PostgreSQL (server/startup.ts) does not load PGlite to recognise it
// (docs/benchmarks/history/2026-11-26-server-memory.md).

export type PgliteLockHolder = { pid: number; hostname: string; started_at: string; command: string };

/** Another live process has the embedded database open. */
export class PgliteLockedError extends Error {
  readonly code = 'PGLITE_LOCKED';
  constructor(
    readonly dataDir: string,
    readonly lockFile: string,
    readonly holder: PgliteLockHolder | null,
  ) {
    const who = holder
      ? `process ${holder.pid}${holder.hostname !== os.hostname() ? ` on ${holder.hostname}` : ''} (${holder.command || 'unknown command'}, since ${holder.started_at})`
      : 'another process';
    super(
      `The embedded database at ${dataDir} is in use by ${who}. PGlite allows one process at a time: ` +
        `stop that process first, or run both against PostgreSQL with DATABASE_URL. ` +
        `If no such process exists any more, delete ${lockFile}.`,
    );
    this.name = 'PgliteLockedError';
  }
}

export function isPgliteLockedError(err: unknown): err is PgliteLockedError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'PGLITE_LOCKED';
}
