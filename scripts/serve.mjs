#!/usr/bin/env node
/**
 * The service's HTTP server: Next.js through its programmatic API behind a
 * plain node:http server.
 *
 *   node scripts/serve.mjs          production (needs `next build` first; `npm start`)
 *   node scripts/serve.mjs --dev    development (also when NODE_ENV=development)
 *
 * Environment: PORT (default 3000), HOST (default 0.0.0.0), TRUST_PROXY, API_COMPRESSION, WEB_CONCURRENCY,
 * MAX_CONCURRENT_REQUESTS, SERVER_V8_FLAGS.
 *
 * Admission: at most MAX_CONCURRENT_REQUESTS requests (default 64; 0 = no limit) are inside
 * Next.js at once; the others wait in arrival order (./admission.mjs). Health checks, /metrics
 * and Next.js's static files are never held back (docs/operations.md "Admission limit").
 *
 * Client address: unless TRUST_PROXY is "1" or "true", every request's
 * X-Forwarded-For is overwritten with the socket's remote address (Next.js
 * only sets it when absent, so a client could otherwise pick its own address
 * and dodge per-IP rate limits), and client-sent X-Forwarded-Host/-Proto/-Port,
 * Forwarded and X-Real-IP are dropped (Next.js derives the request URL from
 * them). With TRUST_PROXY the proxy in front is trusted to set them.
 *
 * API answers (/v1/...) are sent uncompressed unless API_COMPRESSION is "1" or "true":
 * they are small JSON, and Next.js gzips every answer in a stream of its own (a zlib
 * context per response), which cost about a tenth of the server's CPU per request
 * (docs/benchmarks/history/2026-11-25-contention.md); compress at the proxy if wanted.
 * Pages and /public answers are compressed as before.
 *
 * A path with a malformed percent-escape is answered 400 `invalid_request`
 * in the error envelope here (Next.js would answer a plain-text 500).
 *
 * V8 (SERVER_V8_FLAGS, default `--heap-growing-percent=30`): after each full garbage collection
 * the heap may grow to 1.3x what survived before the next one, instead of V8's own factor of up
 * to 4x; a 500-way race then peaked at about 180 MB instead of about 320 MB, with the same
 * throughput (docs/operations.md "Memory settings",
 * docs/benchmarks/history/2026-11-26-server-memory.md). `none` turns it off. The young
 * generation's size is fixed at start and cannot be set that way: a production server started
 * without `--max-semi-space-size` on node's command line or in NODE_OPTIONS replaces itself
 * (process.execve: the same process id, no second process) with one started with
 * `--max-semi-space-size=16`, however it was started (Node 24's default young generation cost
 * about 100 MB of resident memory; docs/benchmarks/history/2026-11-29-node-24.md).
 *
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish
 * (up to SHUTDOWN_GRACE_MS, default 10 s), run the service's shutdown hook
 * (closes the rate limiter and the database; see server/startup.ts), exit 0.
 * A second signal exits at once.
 */
import './node-version.mjs';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { createAdmission } from './admission.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHUTDOWN_HOOK = Symbol.for('agent-scheduler.shutdown');
const FATAL_HOOK = Symbol.for('agent-scheduler.fatal');
/** Set by the service (server/startup.ts): a request that may write wakes the idle background loops (docs/operations.md "Idle"). */
const ACTIVITY_HOOK = Symbol.for('agent-scheduler.activity');
const SPOOFABLE = ['x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'forwarded', 'x-real-ip'];
/** Never held back by the admission limit: a probe must see a busy server as alive, and pages need their assets. */
const UNLIMITED = /^\/(?:api\/health(?:[/?]|$)|metrics(?:[/?]|$)|_next\/)/;
const DEFAULT_MAX_CONCURRENT = 64;
/**
 * V8 settings applied at start unless SERVER_V8_FLAGS says otherwise (docs/operations.md "Memory
 * settings"): a full collection lets the heap grow to 1.3x its survivors before the next one.
 * V8 reads this factor at every full collection, so it takes effect when set at run time.
 */
const DEFAULT_V8_FLAGS = '--heap-growing-percent=30';

/**
 * SERVER_V8_FLAGS (default DEFAULT_V8_FLAGS; "none": none; flags separated by spaces): V8 flags set with
 * v8.setFlagsFromString before Next.js loads. Only flags V8 reads while running take effect this
 * way; heap sizes fixed at start (--max-semi-space-size, --max-old-space-size) belong on node's
 * command line or in NODE_OPTIONS.
 */
function applyV8Flags() {
  const raw = process.env.SERVER_V8_FLAGS ?? DEFAULT_V8_FLAGS;
  const flags = raw === 'none' ? [] : raw.split(/\s+/).filter(Boolean);
  for (const f of flags) {
    if (!/^--[a-z0-9-]+(=\S+)?$/.test(f)) throw new Error(`SERVER_V8_FLAGS: not a V8 flag: ${f}`);
    v8.setFlagsFromString(f);
  }
}

/** The young generation's size (MB per semi-space) a production server runs with unless told otherwise: Node 20's. */
const SEMI_SPACE_MB = 16;

/**
 * A production server whose young generation was not sized on node's command line or in
 * NODE_OPTIONS runs again in the same process (execve) with `--max-semi-space-size=16` (the
 * header above): the heap is sized before any code runs, so no flag set from here would do.
 */
function sizeYoungGeneration() {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => /^--max[-_]semi[-_]space[-_]size\b/.test(a));
  // process.execve is Node 23.11+ on POSIX systems only (not Windows): elsewhere the server runs as started.
  if (given || typeof process.execve !== 'function') return;
  process.execve(process.execPath, [process.execPath, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...process.execArgv, ...process.argv.slice(1)], process.env);
}

/** Normalise `::ffff:127.0.0.1` to `127.0.0.1`. */
function socketAddress(req) {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/**
 * Next.js decodes the path with decodeURIComponent and answers a malformed
 * percent-escape (`/v1/bookings/%ff`, `%zz`) with a plain-text 500. Such a
 * path names nothing: it is refused here, before Next sees it.
 */
function wellFormedPath(url) {
  const path = (url ?? '/').split('?', 1)[0];
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** 400 in the API's error envelope (docs/api.md "Errors"). */
function malformedPath(res) {
  const body = JSON.stringify({
    error: { code: 'invalid_request', message: 'The request path contains a malformed percent-escape' },
    pending_notifications: [],
  });
  res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * An uncompressed /v1 answer goes out in one write: Next.js flushes the headers on their own
 * and then writes each chunk of the body and the end as they come, two or three system calls
 * per answer (docs/benchmarks/history/2026-11-25-contention.md). /v1 answers are small JSON
 * documents, none of them streamed, so the body is held until Next.js ends the response, and
 * node:http then sends the headers, the body and the end together.
 */
function sendInOneWrite(res) {
  const chunks = [];
  const { write, end } = res;
  const hold = (chunk, encoding) => {
    if (chunk !== undefined && chunk !== null) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : Buffer.from(chunk));
  };
  res.flushHeaders = () => {};
  res.write = (chunk, encoding, cb) => {
    hold(chunk, encoding);
    const done = typeof encoding === 'function' ? encoding : cb;
    if (done) process.nextTick(done);
    return true;
  };
  res.end = (chunk, encoding, cb) => {
    if (typeof chunk === 'function') [chunk, cb] = [undefined, chunk];
    else if (typeof encoding === 'function') [encoding, cb] = [undefined, encoding];
    hold(chunk, encoding);
    res.write = write;
    res.end = end;
    delete res.flushHeaders;
    return chunks.length ? end.call(res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), cb) : end.call(res, cb);
  };
}

/**
 * Start the server. Resolves once it is listening.
 * @param {{ dev?: boolean, port?: number, host?: string, dir?: string, onReady?: (url: string) => void }} [opts]
 */
export async function startServer(opts = {}) {
  const dev = opts.dev ?? (process.argv.includes('--dev') || process.env.NODE_ENV === 'development');
  const dir = opts.dir ?? ROOT;
  const port = opts.port ?? Number(process.env.PORT || 3000);
  const host = opts.host ?? (process.env.HOST || '0.0.0.0');
  const trustProxy = process.env.TRUST_PROXY === '1' || process.env.TRUST_PROXY === 'true';
  const compressApi = process.env.API_COMPRESSION === '1' || process.env.API_COMPRESSION === 'true';
  const maxConcurrent = Number(process.env.MAX_CONCURRENT_REQUESTS ?? DEFAULT_MAX_CONCURRENT);
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 0) throw new Error(`MAX_CONCURRENT_REQUESTS must be a whole number >= 0, got ${process.env.MAX_CONCURRENT_REQUESTS}`);
  const admission = createAdmission(maxConcurrent);
  // Read by the gauges scheduler_http_admission_active/_waiting (server/observability/metrics.ts).
  globalThis[Symbol.for('agent-scheduler.admission')] = admission;

  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${process.env.PORT}`);
  if (!dev && !fs.existsSync(path.join(dir, '.next', 'BUILD_ID'))) {
    throw new Error('No production build in .next: run `npm run build` first (or `npm run dev` for development).');
  }
  // This machine has no route to Next's telemetry endpoint; opt in explicitly with NEXT_TELEMETRY_DISABLED=0.
  process.env.NEXT_TELEMETRY_DISABLED ??= '1';
  // Next reads NODE_ENV; make it agree with the mode (as `next dev` / `next start` do).
  process.env.NODE_ENV = dev ? 'development' : 'production';

  // The service calls this (server/startup.ts) when it cannot run at all, e.g. the embedded database is locked.
  globalThis[FATAL_HOOK] = (err) => {
    console.error(`serve: cannot start: ${err?.message ?? err}`);
    process.exit(1);
  };

  const { default: next } = await import('next');
  const app = next({ dev, dir, hostname: host === '0.0.0.0' || host === '::' ? 'localhost' : host, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const upgrade = typeof app.getUpgradeHandler === 'function' ? app.getUpgradeHandler() : null;

  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') globalThis[ACTIVITY_HOOK]?.();
    if (!wellFormedPath(req.url)) {
      malformedPath(res);
      return;
    }
    if (!trustProxy) {
      req.headers['x-forwarded-for'] = socketAddress(req);
      for (const h of SPOOFABLE) delete req.headers[h];
    }
    if (!compressApi && req.url?.startsWith('/v1/')) {
      delete req.headers['accept-encoding'];
      if (req.method !== 'HEAD') sendInOneWrite(res);
    }
    const run = () =>
      handle(req, res).catch((err) => {
        console.error(JSON.stringify({ level: 'error', at: new Date().toISOString(), msg: 'unhandled request error', err: String(err?.stack ?? err) }));
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ error: { code: 'internal_error', message: 'Internal server error' }, pending_notifications: [] }));
        } else {
          res.destroy();
        }
      });
    if (UNLIMITED.test(req.url ?? '/')) run();
    else admission.admit(req, res, run);
  });
  // Idle keep-alive sockets stay open longer than a client or proxy typically reuses them
  // (Node's default is 5 s), so a request sent on a socket the server is just closing does
  // not meet a reset (docs/operations.md "Several instances", Keep-alive).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Dev mode's hot reload uses a WebSocket.
  if (dev && upgrade) {
    server.on('upgrade', (req, socket, head) => {
      if (!trustProxy) req.headers['x-forwarded-for'] = socketAddress(req);
      upgrade(req, socket, head);
    });
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${actualPort}`;
  console.log(
    `> Ready on ${url} (${dev ? 'development' : 'production'}, Node.js ${process.version}, listening on ${host}:${actualPort}, ` +
      `client address from ${trustProxy ? 'X-Forwarded-For (TRUST_PROXY)' : 'the socket'})`,
  );
  opts.onReady?.(url);

  installShutdown(server, app);
  return { server, app, url };
}

function installShutdown(server, app) {
  let stopping = false;
  const graceMs = Number(process.env.SHUTDOWN_GRACE_MS || 10_000);
  const stop = async (signal) => {
    if (stopping) {
      console.error(`> ${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    console.log(`> ${signal}: shutting down (in-flight requests get up to ${graceMs} ms)`);
    const closed = new Promise((resolve) => server.close(() => resolve()));
    server.closeIdleConnections?.();
    const timer = setTimeout(() => server.closeAllConnections?.(), graceMs);
    timer.unref();
    await closed;
    clearTimeout(timer);
    try {
      const hook = globalThis[SHUTDOWN_HOOK];
      if (typeof hook === 'function') await hook();
    } catch (err) {
      console.error('> shutdown hook failed:', err);
    }
    try {
      await app.close();
    } catch {
      // Next's own cleanup is best effort
    }
    console.log('> stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * WEB_CONCURRENCY=N (N > 1, production on PostgreSQL only): a primary process forks N
 * server processes sharing the port (node:cluster), e.g. one per core. Each is a full
 * instance (its own pool of DB_POOL_MAX connections, sweeper and webhook delivery, which are
 * safe to run on several instances; per-owner in-memory queues become per process, the owner
 * row lock stays the authority). SIGTERM/SIGINT go to every worker; the primary exits when
 * they have. A worker that dies is not restarted: the primary then stops the others and exits
 * non-zero, so a supervisor restarts the whole service.
 */
async function startCluster(workers) {
  const { default: cluster } = await import('node:cluster');
  if (cluster.isWorker) return startServer();
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  let ready = 0;
  cluster.on('listening', () => {
    if (++ready === workers) console.log(`> ${workers} server processes listening (WEB_CONCURRENCY)`);
  });
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      console.error(`> server process ${worker.process.pid} exited (${signal ?? code}); stopping the others`);
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      process.exitCode = 1;
    }
    if (!Object.keys(cluster.workers ?? {}).length) process.exit(process.exitCode ?? 0);
  });
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const workers = Number(process.env.WEB_CONCURRENCY || 1);
  const dev = process.argv.includes('--dev') || process.env.NODE_ENV === 'development';
  if (!dev) sizeYoungGeneration();
  const start = async () => {
    applyV8Flags();
    if (!(Number.isInteger(workers) && workers >= 1)) throw new Error(`WEB_CONCURRENCY must be a positive whole number, got ${process.env.WEB_CONCURRENCY}`);
    if (workers === 1) return startServer();
    if (dev) throw new Error('WEB_CONCURRENCY > 1 is for production builds only');
    if (!process.env.DATABASE_URL || process.env.DB_DRIVER === 'pglite') throw new Error('WEB_CONCURRENCY > 1 needs PostgreSQL (DATABASE_URL): the embedded database serves one process');
    return startCluster(workers);
  };
  start().catch((err) => {
    console.error(`serve: ${err?.message ?? err}`);
    process.exit(1);
  });
}
