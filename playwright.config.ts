import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests against the production server (scripts/serve.mjs after
 * `next build`, which the first web server runs unless E2E_SKIP_BUILD=1).
 *
 * - E2E_DATABASE_URL set: two instances (ports 3100 and 3101) share that
 *   PostgreSQL and, with E2E_REDIS_URL, one Redis for rate limits.
 * - otherwise: one instance on a fresh temporary embedded PGlite.
 *
 * Tests find the instances in E2E_BASE_URLS (comma-separated; see e2e/servers.ts)
 * and the mail the servers send in e2e/mailbox.ts (SMTP on E2E_SMTP_PORT,
 * default E2E_PORT + 19).
 * Browser: Debian's Chromium at /usr/bin/chromium (never `npx playwright install`).
 */
const ROOT = __dirname;
const databaseUrl = process.env.E2E_DATABASE_URL || '';
const redisUrl = process.env.E2E_REDIS_URL || '';
const firstPort = Number(process.env.E2E_PORT || 3100);
const ports = databaseUrl ? [firstPort, firstPort + 1] : [firstPort];
const skipBuild = process.env.E2E_SKIP_BUILD === '1';

// Set once in the runner process; workers inherit the environment (and must not make another temp dir).
process.env.E2E_BASE_URLS = ports.map((p) => `http://127.0.0.1:${p}`).join(',');
if (!databaseUrl && !process.env.E2E_PGLITE_DIR) {
  const parent = path.join(os.tmpdir(), 'agent-scheduler-e2e');
  fs.mkdirSync(parent, { recursive: true });
  sweepOldRuns(parent);
  process.env.E2E_PGLITE_DIR = path.join(fs.mkdtempSync(path.join(parent, 'run-')), 'pglite');
}
// The embedded database admits one process, so what the journeys need from the CLI is made
// before the server opens it: the demo customer (`cli seed-demo`, for e2e/demo-public-link.spec.ts;
// e2e/bootstrapKey.ts `seededDemo`) and one customer per journey, each with an owner who has a
// password (e2e/seed-journeys.ts; e2e/journeyPool.ts hands them out, one to each journey, so no
// two journeys share data or a sign-in budget). E2E_JOURNEY_CUSTOMERS: more than the journeys of
// one run ask for. With PostgreSQL each journey mints its own customer with the CLI.
process.env.E2E_KEY_FILE ||= databaseUrl ? '' : path.join(path.dirname(process.env.E2E_PGLITE_DIR!), 'bootstrap.json');
process.env.E2E_JOURNEY_FILE ||= databaseUrl ? '' : path.join(path.dirname(process.env.E2E_PGLITE_DIR!), 'journeys.json');
const keyFile = process.env.E2E_KEY_FILE;
const journeyFile = process.env.E2E_JOURNEY_FILE;
const journeyCustomers = Number(process.env.E2E_JOURNEY_CUSTOMERS || 40);
// Outgoing mail goes to the run's SMTP server on loopback (e2e/global-setup.ts, e2e/mailbox.ts):
// a fixed port after the servers' (E2E_PORT + 19), messages as files in a fresh folder.
if (!process.env.E2E_SMTP_PORT) process.env.E2E_SMTP_PORT = String(firstPort + 19);
if (!process.env.E2E_MAIL_DIR) {
  const parent = path.join(os.tmpdir(), 'agent-scheduler-e2e');
  fs.mkdirSync(parent, { recursive: true });
  process.env.E2E_MAIL_DIR = fs.mkdtempSync(path.join(parent, 'mail-'));
}
// GET /metrics needs this bearer token (e2e/metrics.spec.ts; docs/operations.md "Metrics").
process.env.E2E_METRICS_TOKEN ||= `e2e-metrics-${process.pid}-${Date.now()}`;
// Keep Chromium's profile and crash folders inside the project.
process.env.XDG_CONFIG_HOME = path.join(ROOT, '.xdg', 'config');
process.env.XDG_CACHE_HOME = path.join(ROOT, '.xdg', 'cache');

function serverEnv(port: number): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    DATABASE_URL: databaseUrl,
    DB_DRIVER: '',
    PGLITE_DIR: databaseUrl ? '' : process.env.E2E_PGLITE_DIR!,
    REDIS_URL: redisUrl,
    UPSTASH_REDIS_REST_URL: '',
    UPSTASH_REDIS_REST_TOKEN: '',
    TRUST_PROXY: '',
    PUBLIC_BASE_URL: '',
    SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`,
    MAIL_FROM: 'Scheduling <no-reply@e2e.example>',
    // Webhook receivers and the Radicale of the tests listen on loopback; every instance sharing the
    // database runs the delivery worker, so all of them must be allowed to reach it (the outbound
    // guard's setting, docs/reliability.md "Outbound requests").
    OUTBOUND_ALLOW_PRIVATE: '1',
    // Connected calendars (e2e/dashboard-connections.spec.ts): the test's Radicale speaks plain http on
    // loopback, and a changed CalDAV password shows within seconds (background sync every 5 s).
    CALDAV_ALLOW_HTTP: '1',
    CALENDAR_SYNC_INTERVAL_SECONDS: '5',
    METRICS_TOKEN: process.env.E2E_METRICS_TOKEN!,
    // Every journey's browser signs in from 127.0.0.1: the suite makes more than the default 30
    // password attempts per address in 15 minutes (the throttle itself: e2e/auth-hardening.spec.ts,
    // on a server of its own with the default).
    SIGN_IN_IP_LIMIT: '1000',
    METRICS_PORT: '',
    LOG_LEVEL: 'info',
    GOOGLE_CLIENT_ID: '',
    MICROSOFT_CLIENT_ID: '',
  };
}

/** Temporary databases of earlier runs (older than 6 h) go. */
function sweepOldRuns(parent: string): void {
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > 6 * 3600_000) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // another run may be removing it
    }
  }
}

export default defineConfig({
  testDir: './e2e',
  // The concurrency histories (e2e/reliability/races.spec.ts, one worker for several minutes with
  // RACE_ROUNDS=20) are queued first: started last, as file order had it, they ran alone at the end
  // while the other worker sat idle (docs/reliability.md, "RACE_ROUNDS").
  projects: [
    { name: 'races', testMatch: /reliability[\\/]races\.spec\.ts$/ },
    { name: 'e2e', testIgnore: /reliability[\\/]races\.spec\.ts$/ },
  ],
  globalSetup: './e2e/global-setup.ts',
  outputDir: './test-results',
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 2,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: '.test-results/playwright.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${ports[0]}`,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      // npm test hands the Chromium it found on PATH (scripts/test-prepare.mjs); Debian's by default.
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'retain-on-failure',
  },
  webServer: ports.map((port, i) => {
    const build = i === 0 && !skipBuild;
    return {
      // Started one after the other, so only the first builds.
      command: [
        build && 'npm run -s build',
        i === 0 && keyFile && `npm run -s cli -- seed-demo --json > "${keyFile}"`,
        i === 0 && journeyFile && `npx tsx e2e/seed-journeys.ts ${journeyCustomers} > "${journeyFile}"`,
        'node scripts/serve.mjs',
      ]
        .filter(Boolean)
        .join(' && '),
      url: `http://127.0.0.1:${port}/`,
      cwd: ROOT,
      env: serverEnv(port),
      reuseExistingServer: false,
      timeout: build ? 15 * 60_000 : 2 * 60_000,
      stdout: 'pipe' as const,
      stderr: 'pipe' as const,
      gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 15_000 },
    };
  }),
});
