import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 keeps initdb and pg_ctl (PG_BIN overrides). */
const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
export const NEEDS_PG_BINARIES = `needs PostgreSQL 15's initdb and pg_ctl in ${PG_BIN} (apt-get install -y postgresql-15, or PG_BIN): it starts and restarts a throwaway server of its own`;

export function postgresBinariesPresent(): boolean {
  return fs.existsSync(path.join(PG_BIN, 'initdb')) && fs.existsSync(path.join(PG_BIN, 'pg_ctl'));
}

/**
 * A PostgreSQL server of a test's own, in a temporary directory, on loopback `port` (trust
 * authentication, user postgres): started, stopped (fast: sessions are terminated with 57P01
 * admin_shutdown, as when a primary goes away), started again, removed. As root, the server
 * runs as the `postgres` user (PostgreSQL refuses root).
 */
export async function throwawayPostgres(port: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-throwaway-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await run('chown', ['postgres:postgres', dir]);
  const exec = async (bin: string, args: string[]) => {
    const file = path.join(PG_BIN, bin);
    return asRoot ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
  };
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=60 -c shared_buffers=32MB`;
  const ctl = (...args: string[]) => exec('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), ...args]);
  const start = () => ctl('-o', opts, '-w', '-t', '30', 'start');
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    /** `pg_ctl stop -m fast`: every session is terminated (57P01), the port refuses connections. */
    stop: () => ctl('-m', 'fast', '-w', 'stop'),
    async remove() {
      await ctl('-m', 'immediate', '-w', 'stop').catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
