/**
 * Command-line tool for the configured database (DATABASE_URL, else the
 * embedded PGlite under PGLITE_DIR). Run with `npm run cli -- <command>`
 * (`npm run -s cli -- ...` keeps npm's own "> script" banner off stdout).
 *
 *   bootstrap --customer NAME [--json]   new customer + first admin agent and API key
 *   migrate [--json]                     open the database, applying pending migrations
 *   seed-demo [--if-empty] [--json]      demo customer with an owner, rules, classes and a key
 *   set-password --email E [--customer-id ID] [--password P] [--json]
 *                                        dashboard password of an owner (generated when omitted)
 *
 * With --json, stdout carries exactly one JSON object and everything else goes
 * to stderr. Exit codes: 0 ok, 1 error, 2 usage, 3 embedded database in use
 * by another process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { and, eq, sql } from 'drizzle-orm';
import { closeDb, getDbHandle, type Db } from '@/server/db';
import { owners } from '@/db/schema';
import { normalizeEmail } from '@/server/domain/access';
import { setOwnerPassword } from '@/server/domain/passwords';
import { acquirePgliteLock, isPgliteLockedError } from '@/db/drivers/pglite';
import { getConfig } from '@/server/config';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { isDomainError } from '@/server/domain/errors';
import { describeDatabase, generatePassword, type Out } from './cli/common';
import { seedDemo } from './cli/seedDemo';

const EXIT_ERROR = 1;
const EXIT_USAGE = 2;
const EXIT_DB_BUSY = 3;

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  bootstrap --customer NAME [--json]
      Create a customer and its first admin agent (all permissions, scope org:*)
      and print the agent's API key (shown once).
      --json prints exactly {"customer_id","agent_id","api_key"} on stdout.
  migrate [--json]
      Open the configured database and apply pending migrations.
  seed-demo [--if-empty] [--json]
      Create a demo customer: owner demo.owner@example.com (Europe/Berlin,
      Mon-Fri 09:00-17:00, lunch blocked), meeting classes and an admin API key.
      --if-empty: do nothing when any customer exists.
  set-password --email EMAIL [--customer-id ID] [--password PASSWORD] [--json]
      Set the dashboard password of a calendar owner (sign in at /signin).
      Without --password a random one is generated and printed. --customer-id is
      needed when several customers have an owner with this email.

Database: DATABASE_URL (PostgreSQL), else the embedded PGlite in PGLITE_DIR
(default .data/pglite). The embedded database allows one process at a time:
stop the server before running commands against it.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return command ? 0 : EXIT_USAGE;
  }

  const { values } = parseArgs({
    args: rest,
    options: {
      customer: { type: 'string' },
      email: { type: 'string' },
      'customer-id': { type: 'string' },
      password: { type: 'string' },
      json: { type: 'boolean', default: false },
      'if-empty': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }

  // With --json, stdout is reserved for the one result object: anything else
  // (migration notices, logs, library chatter) is redirected to stderr.
  const realStdout = process.stdout.write.bind(process.stdout);
  if (values.json) {
    process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  }
  const out: Out = { json: values.json, write: (text) => void realStdout(text) };

  switch (command) {
    case 'bootstrap':
      return bootstrap(values.customer, out);
    case 'migrate':
      return migrateCommand(out);
    case 'seed-demo':
      return seedDemo(values['if-empty'], out);
    case 'set-password':
      return setPasswordCommand(values.email, values['customer-id'], values.password, out);
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

// ---------------------------------------------------------------------------

async function bootstrap(customer: string | undefined, out: Out): Promise<number> {
  const name = customer?.trim();
  if (!name) throw new UsageError('bootstrap needs --customer NAME');
  if (name.length > 200) throw new UsageError('--customer must be at most 200 characters');
  const { db } = await getDbHandle();
  const result = await bootstrapCustomer(db, name);
  if (out.json) {
    out.write(JSON.stringify({ customer_id: result.customer_id, agent_id: result.agent_id, api_key: result.api_key }) + '\n');
  } else {
    out.write(
      [
        `Created customer "${name}" on ${describeDatabase()}`,
        `  customer_id  ${result.customer_id}`,
        `  agent_id     ${result.agent_id}  (admin: every permission, owner_scope org:*)`,
        `  api_key      ${result.api_key}`,
        '',
        'The key is shown only once; it is stored as a hash. Use it as: Authorization: Bearer <api_key>',
        '',
      ].join('\n'),
    );
  }
  return 0;
}

// ---------------------------------------------------------------------------

type MigrationEntry = { tag: string; when: number };

function journal(): MigrationEntry[] {
  const file = path.join(getConfig().migrationsDir, 'meta', '_journal.json');
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: MigrationEntry[] };
  return parsed.entries;
}

const APPLIED_SQL = 'select created_at from drizzle.__drizzle_migrations';

/** `created_at` (the migration's journal timestamp) of each applied migration, before opening through the app. */
async function appliedBeforeOpen(): Promise<{ applied: Set<number>; release: () => void }> {
  const config = getConfig();
  const none = { applied: new Set<number>(), release: () => {} };
  if (config.databaseUrl) {
    const { default: postgres } = await import('postgres');
    const client = postgres(config.databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
    try {
      const rows = await client.unsafe<{ created_at: string }[]>(APPLIED_SQL);
      return { applied: new Set(rows.map((r) => Number(r.created_at))), release: () => {} };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '42P01' || code === '3F000') return none; // no migrations table or schema yet
      throw err;
    } finally {
      await client.end({ timeout: 5 });
    }
  }
  if (config.dbDriver === 'pglite-memory') return none;
  if (!fs.existsSync(path.join(config.pgliteDir, 'PG_VERSION'))) return none;
  // Hold the lock across the peek and the real open below (it is re-entrant in this process).
  const release = acquirePgliteLock(config.pgliteDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { btree_gist } = await import('@electric-sql/pglite/contrib/btree_gist');
    const client = await PGlite.create({ dataDir: config.pgliteDir, extensions: { btree_gist } });
    try {
      const res = await client.query<{ created_at: string }>(APPLIED_SQL);
      return { applied: new Set(res.rows.map((r) => Number(r.created_at))), release };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '42P01' || code === '3F000') return { applied: new Set(), release };
      throw err;
    } finally {
      await client.close();
    }
  } catch (err) {
    release();
    throw err;
  }
}

async function migrateCommand(out: Out): Promise<number> {
  const entries = journal();
  const before = await appliedBeforeOpen();
  let db: Db;
  try {
    ({ db } = await getDbHandle());
  } finally {
    before.release();
  }
  // postgres.js answers an array of rows, PGlite an object with `rows`.
  const result = (await db.execute(sql.raw(APPLIED_SQL))) as unknown as { created_at: string }[] | { rows: { created_at: string }[] };
  const after = new Set((Array.isArray(result) ? result : result.rows).map((r) => Number(r.created_at)));
  const appliedNow = entries.filter((e) => after.has(e.when) && !before.applied.has(e.when)).map((e) => e.tag);
  const pending = entries.filter((e) => !after.has(e.when)).map((e) => e.tag);
  const latest = [...entries].reverse().find((e) => after.has(e.when))?.tag ?? null;
  if (out.json) {
    out.write(JSON.stringify({ database: describeDatabase(), applied: appliedNow, latest, total: after.size, pending }) + '\n');
  } else {
    const lines = [`Database: ${describeDatabase()}`];
    lines.push(
      appliedNow.length
        ? `Applied ${appliedNow.length} migration(s): ${appliedNow.join(', ')}`
        : `Already up to date: nothing to apply.`,
    );
    lines.push(`Schema at ${latest ?? '(none)'} (${after.size} of ${entries.length} migrations applied).`);
    if (pending.length) lines.push(`Not applied (unexpected): ${pending.join(', ')}`);
    out.write(lines.join('\n') + '\n');
  }
  return pending.length ? EXIT_ERROR : 0;
}

// ---------------------------------------------------------------------------

async function setPasswordCommand(email: string | undefined, customerId: string | undefined, password: string | undefined, out: Out): Promise<number> {
  if (!email) throw new UsageError('set-password needs --email EMAIL');
  const { db } = await getDbHandle();
  const matches = await db
    .select({ customerId: owners.customerId })
    .from(owners)
    .where(customerId ? and(eq(owners.email, normalizeEmail(email)), eq(owners.customerId, customerId)) : eq(owners.email, normalizeEmail(email)));
  if (matches.length === 0) return fail(`No calendar owner with email ${email}${customerId ? ` in customer ${customerId}` : ''}`, EXIT_ERROR);
  if (matches.length > 1) return fail(`Several customers have an owner ${email}: pass --customer-id`, EXIT_USAGE);
  const chosen = password ?? generatePassword();
  await setOwnerPassword(db, matches[0].customerId, email, chosen);
  if (out.json) out.write(JSON.stringify({ owner_email: normalizeEmail(email), customer_id: matches[0].customerId, ...(password ? {} : { password: chosen }) }) + '\n');
  else out.write(password ? `Password set for ${email}.\n` : `Password for ${email}: ${chosen}\n`);
  return 0;
}

function fail(message: string, code: number): number {
  process.stderr.write(`cli: ${message}\n`);
  return code;
}

async function run(): Promise<void> {
  let code: number;
  try {
    code = await main(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      code = fail(`${(err as Error).message}\n\n${USAGE}`, EXIT_USAGE);
    } else if (isPgliteLockedError(err)) {
      code = fail(err.message, EXIT_DB_BUSY);
    } else if (isDomainError(err)) {
      code = fail(`${err.code}: ${err.message}`, EXIT_ERROR);
    } else {
      const e = err as Error & { cause?: unknown };
      const cause = e.cause instanceof Error ? ` (cause: ${e.cause.message})` : '';
      code = fail(`${e?.message ?? String(err)}${cause}`, EXIT_ERROR);
      if (process.env.DEBUG) process.stderr.write(`${e?.stack}\n`);
    }
  }
  try {
    await closeDb();
  } catch (err) {
    process.stderr.write(`cli: closing the database failed: ${(err as Error).message}\n`);
    if (code === 0) code = EXIT_ERROR;
  }
  process.exit(code);
}

void run();
