import fs from 'node:fs';
import path from 'node:path';
import { linksIn, type ReceivedMail } from '../tests/helpers/smtp';

/**
 * The e2e mailbox: one real SMTP server on loopback for the whole run
 * (e2e/global-setup.ts, port E2E_SMTP_PORT; the servers get SMTP_URL
 * pointing at it), writing every message it receives as a JSON file under
 * E2E_MAIL_DIR, so specs in any worker can read their mail.
 */
const mailDir = (): string => process.env.E2E_MAIL_DIR!;

export function writeMail(m: ReceivedMail): void {
  const file = path.join(mailDir(), `${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(m));
  fs.renameSync(`${file}.tmp`, file);
}

/** Every message so far (only those received at or after `after` ms, when given). */
export function readAll(after = 0): ReceivedMail[] {
  const dir = mailDir();
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') && Number(f.split('-')[0]) >= after)
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ReceivedMail);
}

/** The first message to `to` (optionally with a subject matching, received at or after `after` ms), waiting for it to arrive. */
export async function waitForMail(to: string, opts: { subject?: RegExp; timeoutMs?: number; after?: number } = {}): Promise<ReceivedMail> {
  const want = to.toLowerCase();
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    const m = readAll(opts.after).find((x) => x.to.includes(want) && (!opts.subject || opts.subject.test(x.subject)));
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} arrived`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export { linksIn };
