import fs from 'node:fs';
import path from 'node:path';
import { startSmtp, type ReceivedMail, type TestSmtp } from '../tests/helpers/smtp';

export { linksIn, type ReceivedMail } from '../tests/helpers/smtp';

/**
 * The end-to-end runs' mailbox: one loopback SMTP server for the whole run
 * (started by e2e/global-setup.ts on E2E_SMTP_PORT; the servers get it as
 * SMTP_URL in playwright.config.ts), spooling each message as a JSON file into
 * E2E_MAIL_DIR, where any test worker reads it.
 */
export function mailDir(): string {
  const dir = process.env.E2E_MAIL_DIR;
  if (!dir) throw new Error('E2E_MAIL_DIR is not set (playwright.config.ts sets it)');
  return dir;
}

export async function startMailbox(port: number, dir: string): Promise<TestSmtp> {
  fs.mkdirSync(dir, { recursive: true });
  let n = 0;
  return startSmtp({
    port,
    onMessage: (mail) => {
      const file = path.join(dir, `${Date.now()}-${process.pid}-${++n}.json`);
      // Written under a temporary name and renamed, so a reader never sees half a message.
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(mail));
      fs.renameSync(`${file}.tmp`, file);
    },
  });
}

function readAll(after = 0): ReceivedMail[] {
  const dir = mailDir();
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') && Number(f.split('-')[0]) >= after)
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ReceivedMail);
}

/** The first message to `to` (optionally with a matching subject, received at or after `after` ms), waiting up to `timeoutMs`. */
export async function waitForMail(to: string, opts: { subject?: RegExp; timeoutMs?: number; after?: number } = {}): Promise<ReceivedMail> {
  const want = to.toLowerCase();
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    const all = readAll(opts.after);
    const found = all.find((m) => m.to.includes(want) && (!opts.subject || opts.subject.test(m.subject)));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} (have: ${all.map((m) => `${m.to.join(',')} "${m.subject}"`).join('; ') || 'none'})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
