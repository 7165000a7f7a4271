import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { databaseUrl, PROJECT_ROOT } from '../servers';
import { nowMs, sleep } from './lib';


export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Our own production server process; killed with SIGKILL (its whole process group), restarted on the same port. */
export class ServerProcess {
  child: ChildProcess | null = null;
  /** Listening and healthy (false from the kill until the restart answered /api/health). */
  ready = false;
  exited: Promise<void> = Promise.resolve();
  starts: number[] = [];
  readonly log: string[] = [];
  constructor(
    readonly port: number,
    readonly env: Record<string, string>,
  ) {}
  get url() {
    return `http://127.0.0.1:${this.port}`;
  }
  async start(): Promise<number> {
    const t = nowMs();
    const child = spawn(process.execPath, ['scripts/serve.mjs'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...this.env },
      detached: true, // its own process group, so the kill takes anything it spawned too
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (b: Buffer) => {
      for (const line of b.toString().split('\n')) if (line.trim()) this.log.push(`[pid ${child.pid}] ${line.slice(0, 500)}`);
      if (this.log.length > 2000) this.log.splice(0, this.log.length - 2000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} during start:\n${this.log.slice(-20).join('\n')}`);
      try {
        const r = await fetch(`${this.url}/api/health`, { signal: AbortSignal.timeout(2000) });
        if (r.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`server not healthy within 90 s:\n${this.log.slice(-20).join('\n')}`);
      await sleep(100);
    }
    const ms = nowMs() - t;
    this.starts.push(ms);
    this.ready = true;
    return ms;
  }
  async kill9(): Promise<void> {
    this.ready = false;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
    await this.exited;
    this.child = null;
  }
  up(): boolean {
    return this.ready && !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }
}

/**
 * A production server of its own on the shared database (a free port, no proxy trust, silent
 * logs), for a test to kill -9 and start again; `extra` adds or overrides settings.
 */
export async function productionServer(extra: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  return new ServerProcess(port, {
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    DATABASE_URL: databaseUrl!,
    DB_DRIVER: '',
    PGLITE_DIR: '',
    REDIS_URL: process.env.E2E_REDIS_URL || '',
    UPSTASH_REDIS_REST_URL: '',
    UPSTASH_REDIS_REST_TOKEN: '',
    TRUST_PROXY: '',
    PUBLIC_BASE_URL: '',
    LOG_LEVEL: 'silent',
    // Mail to the run's mailbox, as the shared instances send it: a server of a test's own runs the
    // workers too (reminders, invitations), and without SMTP it would only log what it sends.
    SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`,
    MAIL_FROM: 'Scheduling <no-reply@e2e.example>',
    ...extra,
  });
}
