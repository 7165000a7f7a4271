import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * How long a test waits for a mail by default: invitations and notices go out from background
 * workers after the commit, and on a loaded 2-core CI host a few seconds were seen to pass.
 */
const MAIL_WAIT_MS = 15_000;

/** A message the test SMTP server received, with its text body decoded. */
export type ReceivedMail = { from: string; to: string[]; subject: string; text: string; raw: string };

export type TestSmtp = {
  port: number;
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** The first message to `to` (arriving within `timeoutMs`), optionally matching `subject`. */
  waitFor(to: string, opts?: { subject?: RegExp; timeoutMs?: number }): Promise<ReceivedMail>;
  close(): Promise<void>;
};

/**
 * A real SMTP server on loopback (random port unless given, no TLS, AUTH
 * optional and accepting anyone) that keeps every message it receives and
 * hands each to `onMessage` (the e2e mailbox writes them to files).
 */
export async function startSmtp(opts: { port?: number; onMessage?: (m: ReceivedMail) => void } = {}): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(_auth, _session, cb) {
      cb(null, { user: 'test' });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const parsed = parseMessage(raw);
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject: parsed.subject,
          text: parsed.text,
          raw,
        };
        messages.push(mail);
        opts.onMessage?.(mail);
        for (const w of [...waiters]) w();
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(to, opts = {}) {
      const want = to.toLowerCase();
      const find = () => messages.find((m) => m.to.includes(want) && (!opts.subject || opts.subject.test(m.subject)));
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = find();
          if (!m) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${opts.timeoutMs ?? MAIL_WAIT_MS} ms (got ${messages.length}: ${messages.map((m) => `${m.to.join(',')} ${m.subject}`).join('; ')})`));
        }, opts.timeoutMs ?? MAIL_WAIT_MS);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The URLs in a message's text, in order. */
export function linksIn(mail: ReceivedMail): string[] {
  return mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
}

// --- just enough MIME to read what nodemailer sends: headers, multipart, quoted-printable, base64

type Part = { headers: Map<string, string>; body: string };

function splitPart(raw: string): Part {
  const sep = raw.search(/\r?\n\r?\n/);
  const head = sep < 0 ? raw : raw.slice(0, sep);
  const body = sep < 0 ? '' : raw.slice(sep).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body };
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const soft = part.body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < soft.length; i++) {
      const hex = soft.slice(i + 1, i + 3);
      if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else bytes.push(...Buffer.from(soft[i], 'utf8'));
    }
    return Buffer.from(bytes).toString('utf8');
  }
  return part.body;
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=` / `=?UTF-8?B?...?=`) in a header. */
function decodeHeader(value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_m, _cs, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'),
  );
}

function textOf(part: Part): string {
  const type = part.headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const pieces = part.body.split(`--${boundary}`).slice(1);
    for (const piece of pieces) {
      if (piece.startsWith('--')) break;
      const text = textOf(splitPart(piece.replace(/^\r?\n/, '')));
      if (text) return text;
    }
    return '';
  }
  return /^text\/plain/i.test(type) || !part.headers.has('content-type') ? decodeBody(part) : '';
}

function parseMessage(raw: string): { subject: string; text: string } {
  const top = splitPart(raw);
  return { subject: decodeHeader(top.headers.get('subject') ?? ''), text: textOf(top) };
}

/** Every leaf part of a raw message: its headers and decoded body. */
function leafPartsOf(raw: string): Part[] {
  const out: Part[] = [];
  const walk = (part: Part) => {
    const type = part.headers.get('content-type') ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (/^multipart\//i.test(type) && boundary) {
      for (const piece of part.body.split(`--${boundary}`).slice(1)) {
        if (piece.startsWith('--')) break;
        walk(splitPart(piece.replace(/^\r?\n/, '')));
      }
      return;
    }
    out.push({ headers: part.headers, body: decodeBody(part) });
  };
  walk(splitPart(raw));
  return out;
}

/** The decoded attachment named `filename` (Content-Disposition: attachment), or null. */
export function attachmentOf(raw: string, filename: string): { contentType: string; body: string } | null {
  for (const p of leafPartsOf(raw)) {
    const disposition = p.headers.get('content-disposition') ?? '';
    if (/^attachment/i.test(disposition) && (disposition.includes(`filename=${filename}`) || disposition.includes(`filename="${filename}"`))) {
      return { contentType: p.headers.get('content-type') ?? '', body: p.body };
    }
  }
  return null;
}

/** The first text/calendar part of a raw message, decoded (null when there is none). */
export function calendarPartOf(raw: string): string | null {
  const find = (part: Part): string | null => {
    const type = part.headers.get('content-type') ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (/^multipart\//i.test(type) && boundary) {
      for (const piece of part.body.split(`--${boundary}`).slice(1)) {
        if (piece.startsWith('--')) break;
        const found = find(splitPart(piece.replace(/^\r?\n/, '')));
        if (found) return found;
      }
      return null;
    }
    return /^text\/calendar/i.test(type) ? decodeBody(part) : null;
  };
  return find(splitPart(raw));
}
