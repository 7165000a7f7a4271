import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A real Radicale (Debian `radicale`: RADICALE_PATH as found by npm test's
 * preparation step, scripts/test-prepare.mjs, else /usr/bin/radicale) on a free loopback
 * port in a temporary folder, with htpasswd (plain) authentication. The
 * password file is re-read on every login, so `setPassword` takes effect on
 * the next request. Ports: RADICALE_PORTS (`from-to`, default 3510-3519).
 */
export type TestRadicale = {
  url: string;
  user: string;
  password: string;
  calendarUrl: string;
  setPassword(password: string): void;
  /** PUT an iCalendar object directly on the server (as a calendar client would). */
  putEvent(name: string, ics: string): Promise<void>;
  /** The objects on the server: href -> iCalendar text. */
  objects(): Promise<Map<string, string>>;
  stop(): Promise<void>;
};

async function freePort(from: number, to: number): Promise<number> {
  for (let p = from; p <= to; p++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(p, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok) return p;
  }
  throw new Error(`no free port in ${from}-${to}`);
}

export async function startRadicale(user = 'alice', password = 'secret-one'): Promise<TestRadicale> {
  const [from, to] = (process.env.RADICALE_PORTS ?? '3510-3519').split('-').map(Number);
  const port = await freePort(from, to);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radicale-'));
  const users = path.join(dir, 'users');
  const setPassword = (pw: string) => fs.writeFileSync(users, `${user}:${pw}\n`);
  setPassword(password);
  const config = path.join(dir, 'config');
  fs.writeFileSync(
    config,
    `[server]\nhosts = 127.0.0.1:${port}\n[auth]\ntype = htpasswd\nhtpasswd_filename = ${users}\nhtpasswd_encryption = plain\ndelay = 0\n[rights]\ntype = owner_only\n[storage]\nfilesystem_folder = ${path.join(dir, 'collections')}\n[logging]\nlevel = warning\n`,
  );
  const child: ChildProcess = spawn(process.env.RADICALE_PATH || '/usr/bin/radicale', ['--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const base = `http://127.0.0.1:${port}`;
  const state = { password };
  const auth = () => `Basic ${Buffer.from(`${user}:${state.password}`).toString('base64')}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/`, { method: 'OPTIONS' });
      break;
    } catch {
      if (i > 100 || child.exitCode !== null) throw new Error(`radicale did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const calendarUrl = `${base}/${user}/work/`;
  const mk = await fetch(calendarUrl, {
    method: 'MKCALENDAR',
    headers: { authorization: auth(), 'content-type': 'application/xml' },
    body: `<?xml version="1.0"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>Work</D:displayname></D:prop></D:set></C:mkcalendar>`,
  });
  if (mk.status !== 201) throw new Error(`MKCALENDAR failed: ${mk.status} ${await mk.text()}`);
  return {
    url: `${base}/`,
    user,
    get password() {
      return state.password;
    },
    calendarUrl,
    setPassword(pw) {
      state.password = pw;
      setPassword(pw);
    },
    async putEvent(name, ics) {
      const res = await fetch(`${calendarUrl}${name}`, { method: 'PUT', headers: { authorization: auth(), 'content-type': 'text/calendar' }, body: ics });
      if (res.status !== 201 && res.status !== 204) throw new Error(`PUT failed: ${res.status}`);
    },
    async objects() {
      const res = await fetch(calendarUrl, {
        method: 'REPORT',
        headers: { authorization: auth(), depth: '1', 'content-type': 'application/xml' },
        body: `<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>`,
      });
      const xml = await res.text();
      const out = new Map<string, string>();
      for (const m of xml.matchAll(/<(?:\w+:)?href>([^<]+)<\/(?:\w+:)?href>[\s\S]*?<(?:\w+:)?calendar-data[^>]*>([\s\S]*?)<\/(?:\w+:)?calendar-data>/g)) {
        out.set(m[1], m[2].replace(/&#13;/g, '\r').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
      }
      return out;
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
