#!/usr/bin/env node
/**
 * `npm run dev`: seed the demo on an empty database, then run the server in
 * development mode and say how to use it.
 *
 * The seeding runs as a child process (`cli seed-demo --if-empty --json`)
 * before this process opens the database: the embedded PGlite allows one
 * process at a time. The demo API key is shown once by the CLI; so that later
 * runs can show it again, it is remembered in .data/dev-demo.json (git-ignored,
 * mode 0600) under the identity of the database it belongs to.
 *
 * Environment as for the server (DATABASE_URL, PGLITE_DIR, PORT, HOST, ...).
 */
import './node-version.mjs';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const DEMO_FILE = path.join(ROOT, '.data', 'dev-demo.json');
const EXIT_DB_BUSY = 3;

function databaseIdentity() {
  const url = process.env.DATABASE_URL;
  if (url) {
    try {
      const u = new URL(url);
      return { id: `postgres://${u.host}${u.pathname}`, label: `PostgreSQL ${u.host}${u.pathname}` };
    } catch {
      return { id: 'postgres', label: 'PostgreSQL (DATABASE_URL)' };
    }
  }
  const dir = path.resolve(ROOT, process.env.PGLITE_DIR || path.join('.data', 'pglite'));
  const rel = path.relative(ROOT, dir);
  return { id: `pglite:${dir}`, label: `embedded PGlite at ${rel && !rel.startsWith('..') ? rel : dir}` };
}

/** Run `cli seed-demo --if-empty --json`; resolves with its parsed stdout, or exits on failure. */
function seedDemo() {
  const tsxCli = require.resolve('tsx/cli');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsxCli, path.join(ROOT, 'scripts', 'cli.ts'), 'seed-demo', '--if-empty', '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      if (code === EXIT_DB_BUSY) {
        console.error('\ndev: the embedded database is in use by another process (see above). Stop it, or set DATABASE_URL.');
        process.exit(1);
      }
      if (code !== 0) {
        console.error(`\ndev: seeding the demo failed (cli exit code ${code}).`);
        process.exit(1);
      }
      try {
        resolve(JSON.parse(out));
      } catch {
        console.error(`dev: unexpected output from the CLI: ${out.slice(0, 500)}`);
        process.exit(1);
      }
    });
  });
}

/** Remembered demo keys, one per database (the file maps database identity -> demo). */
function readAll() {
  try {
    const saved = JSON.parse(fs.readFileSync(DEMO_FILE, 'utf8'));
    return saved && typeof saved === 'object' && !Array.isArray(saved) ? saved : {};
  } catch {
    return {};
  }
}

function readRemembered(dbId) {
  const demo = readAll()[dbId];
  return demo && typeof demo.api_key === 'string' ? demo : null;
}

function remember(dbId, seeded) {
  const all = readAll();
  all[dbId] = {
    api_key: seeded.api_key,
    owner_email: seeded.owner_email,
    owner_password: seeded.owner_password,
    customer_id: seeded.customer_id,
    public_link_alias: seeded.public_link_alias,
    created_at: new Date().toISOString(),
  };
  fs.mkdirSync(path.dirname(DEMO_FILE), { recursive: true });
  fs.writeFileSync(DEMO_FILE, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
  return all[dbId];
}

function banner(url, db, demo, freshlySeeded) {
  const lines = ['', '  Agent Scheduler (development)', '', `  URL          ${url}`, `  Database     ${db.label}`, `  Runtime      Node.js ${process.version}`];
  if (demo) {
    lines.push(
      `  Demo owner   ${demo.owner_email} (Europe/Berlin, Mon-Fri 09:00-17:00, lunch blocked)`,
      `  Demo key     ${demo.api_key}${freshlySeeded ? '   (new: the demo was just seeded)' : ''}`,
      ...(demo.owner_password
        ? [
            `  Dashboard    ${url}/signin  as ${demo.owner_email} / ${demo.owner_password}`,
            `               or choose "With email link": ${process.env.SMTP_URL ? 'the link is mailed over SMTP_URL' : 'the link is printed in this log (SMTP_URL not set)'}`,
          ]
        : []),
      ...(demo.public_link_alias ? [`  Booking page ${url}/${demo.public_link_alias}  (public: what a requester sees)`] : []),
      '',
      '  Try:',
      `    curl ${url}/api/health`,
      `    curl -H "Authorization: Bearer ${demo.api_key}" ${url}/v1/meeting-classes`,
      `    curl -H "Authorization: Bearer ${demo.api_key}" "${url}/v1/schedule-rules?owner_email=${demo.owner_email}"`,
    );
  } else {
    lines.push(
      '',
      '  The database already had customers, so no demo was seeded. Make a key with:',
      `    npm run cli -- bootstrap --customer "My Co"${db.id.startsWith('pglite:') ? '   (stop this server first: the embedded database allows one process)' : ''}`,
    );
  }
  lines.push('', `  API reference  ${url}/docs/api   (OpenAPI document: ${url}/v1/openapi.json)`, '');
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const rule = '-'.repeat(Math.min(width, 120));
  console.log([rule, ...lines, rule].join('\n'));
}

async function main() {
  const db = databaseIdentity();
  console.log(`dev: checking the demo data on ${db.label} ...`);
  const result = await seedDemo();
  const demo = result.seeded ? remember(db.id, result) : readRemembered(db.id);
  if (result.seeded) console.log('dev: seeded the demo customer.');

  const { startServer } = await import('./serve.mjs');
  await startServer({ dev: true, onReady: (url) => banner(url, db, demo, result.seeded) });
}

main().catch((err) => {
  console.error(`dev: ${err?.message ?? err}`);
  process.exit(1);
});
