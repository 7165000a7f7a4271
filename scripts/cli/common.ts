/**
 * What the CLI's commands share (scripts/cli.ts): where their output goes, how they name the
 * database and the server's address, and generated passwords.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { getConfig } from '@/server/config';

/** stdout of a command: with --json exactly one JSON object, everything else goes to stderr. */
export type Out = { json: boolean; write: (text: string) => void };

/** A readable random password (~100 bits). */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url').replace(/[-_]/g, 'x');
}


export function describeDatabase(): string {
  const config = getConfig();
  if (config.databaseUrl) {
    try {
      const u = new URL(config.databaseUrl);
      if (u.password) u.password = '***';
      return `PostgreSQL ${u.toString()}`;
    } catch {
      return 'PostgreSQL (DATABASE_URL)';
    }
  }
  if (config.dbDriver === 'pglite-memory') return 'embedded PGlite (in memory)';
  const rel = path.relative(process.cwd(), config.pgliteDir);
  return `embedded PGlite at ${rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : config.pgliteDir}`;
}

/** Where the examples point: PUBLIC_BASE_URL, else the local server's default address. */
export function exampleBaseUrl(): string {
  const configured = getConfig().publicBaseUrl;
  if (configured) return configured.replace(/\/+$/, '');
  return `http://localhost:${process.env.PORT || 3000}`;
}
