import fs from 'node:fs';
import path from 'node:path';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret, type SecretKind } from '@/server/domain/ids';
import { log, logContext, logDestination, runWithLogContext, setLogDestination, type LogFields } from '@/server/log';

/**
 * Log redaction (docs/operations.md "Logs"): every log call site of the service, found by
 * reading the source, is fed every secret shape through each of its fields (as a string, an
 * Error's message and cause, a nested object and an array), and no secret may reach a line.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

type CallSite = { file: string; line: number; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; keys: string[] };

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|tsx)$/.test(e.name)) out.push(rel);
  }
  return out;
}

/** The top-level keys of the object literal starting at `text[start]` ('{'). */
function objectKeys(text: string, start: number): string[] {
  let depth = 0;
  let end = start;
  for (; end < text.length; end++) {
    if ('{[('.includes(text[end])) depth++;
    else if ('}])'.includes(text[end]) && --depth === 0) break;
  }
  const body = text.slice(start + 1, end);
  const entries: string[] = [];
  let d = 0;
  let cur = '';
  for (const ch of body) {
    if ('{[('.includes(ch)) d++;
    if ('}])'.includes(ch)) d--;
    if (ch === ',' && d === 0) {
      entries.push(cur);
      cur = '';
    } else cur += ch;
  }
  entries.push(cur);
  return entries
    .map((e) => e.trim())
    .filter((e) => e && !e.startsWith('...'))
    .map((e) => /^['"]?([A-Za-z_$][\w$-]*)['"]?/.exec(e)?.[1] ?? '')
    .filter(Boolean);
}

function callSites(): CallSite[] {
  const sites: CallSite[] = [];
  const files = [...sourceFiles('server'), ...sourceFiles('app'), 'instrumentation.ts', 'proxy.ts'];
  for (const file of files) {
    if (file === path.join('server', 'log.ts')) continue;
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\blog\.(debug|info|warn|error)\(\s*(['"`])((?:(?!\2).)*)\2\s*(,\s*\{)?/g)) {
      const keys = m[4] ? objectKeys(text, m.index! + m[0].length - 1) : [];
      sites.push({ file, line: text.slice(0, m.index).split('\n').length, level: m[1] as CallSite['level'], msg: m[3], keys });
    }
  }
  return sites;
}

const KINDS: SecretKind[] = ['apiKey', 'requesterCredential', 'proposalToken', 'verificationToken', 'webhookSecret'];
const PREFIXED = KINDS.map((k) => newSecret(k).secret);
const PASSWORD = 'correct-horse-battery-staple-42';
const URL_WITH_PASSWORD = `smtp://mailer:${PASSWORD}@127.0.0.1:2525`;
const EVERY_SHAPE = `key ${PREFIXED[0]} credential ${PREFIXED[1]} link http://127.0.0.1/p/${PREFIXED[2]}?t=${PREFIXED[3]} whsec=${PREFIXED[4]} via ${URL_WITH_PASSWORD}`;
/** What no line may contain. */
const SECRETS = [...PREFIXED, PASSWORD, 'opaque-bearer-value-77', 'session-cookie-value-99'];

/** A field's value carrying every secret, in each form a call site might hand over. */
function laden(key: string, variant: number): unknown {
  const error = Object.assign(new Error(`failed with ${EVERY_SHAPE}`), { cause: new Error(`cause ${EVERY_SHAPE}`), code: PREFIXED[0] });
  switch (variant) {
    case 0:
      return key === 'err' || key === 'error' || key === 'reason' ? error : EVERY_SHAPE;
    case 1:
      return error;
    case 2:
      return { nested: EVERY_SHAPE, password: PASSWORD, token: 'opaque-bearer-value-77', headers: { authorization: 'Bearer opaque-bearer-value-77', cookie: 'sid=session-cookie-value-99' } };
    default:
      return [EVERY_SHAPE, { apiKey: PREFIXED[0], secret: PASSWORD, url: URL_WITH_PASSWORD }];
  }
}

let lines: string[] = [];
const saved = process.env.LOG_LEVEL;
const runCapture = logDestination();
beforeAll(() => {
  process.env.LOG_LEVEL = 'debug';
  setLogDestination({ write: (line: string) => void lines.push(line) });
});
afterAll(() => {
  // Back to the run's capture (tests/helpers/logCapture.ts) for whatever runs next in this worker.
  setLogDestination(runCapture);
  if (saved === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = saved;
});

describe('log redaction', () => {
  const sites = callSites();

  it('finds the service\'s log call sites', () => {
    expect(sites.length).toBeGreaterThanOrEqual(20);
    expect(sites.some((s) => s.file.includes('handler.ts'))).toBe(true);
    expect(sites.some((s) => s.keys.includes('err'))).toBe(true);
  });

  it('no secret shape, password or header value reaches a line from any call site', () => {
    for (const site of sites) {
      for (let variant = 0; variant < 4; variant++) {
        lines = [];
        const fields: LogFields = {};
        for (const key of site.keys.length ? site.keys : ['detail']) fields[key] = laden(key, variant);
        // The message is censored too (a call site could interpolate).
        runWithLogContext({ request_id: 'req-1', route: '/v1/bookings', customer_id: 'c-1', agent_id: 'a-1' }, () => log[site.level](`${site.msg} ${EVERY_SHAPE}`, fields));
        expect(lines, `${site.file}:${site.line}`).toHaveLength(1);
        const leaked = SECRETS.filter((s) => lines[0].includes(s));
        expect(leaked, `${site.file}:${site.line} (variant ${variant}) leaked`).toEqual([]);
        const line = JSON.parse(lines[0]);
        expect(line).toMatchObject({ level: site.level, request_id: 'req-1', route: '/v1/bookings', customer_id: 'c-1', agent_id: 'a-1' });
        expect(typeof line.time).toBe('string');
      }
    }
  });

  it('keeps what is not secret, and marks what was censored', () => {
    lines = [];
    log.info('booked', { owner: 'ann@example.com', ms: 12, key: PREFIXED[0], password: PASSWORD });
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ msg: 'booked', owner: 'ann@example.com', ms: 12, key: 'ak_[REDACTED]', password: '[REDACTED]' });
  });

  it('keeps a mail text\'s tokens only for a developer (`npm run dev`), and censors them everywhere else', () => {
    const text = `Confirm: http://127.0.0.1:3000/public/verify/${PREFIXED[0]}`;
    lines = [];
    log.infoForDeveloper('mail', { to: 'ann@example.com', password: PASSWORD }, { text }, true);
    log.infoForDeveloper('mail', { to: 'ann@example.com', password: PASSWORD }, { text }, false);
    const [dev, other] = lines.map((l) => JSON.parse(l));
    expect(dev).toMatchObject({ text, to: 'ann@example.com', password: '[REDACTED]' });
    expect(other.text).not.toContain(PREFIXED[0]);
    expect(other).toMatchObject({ to: 'ann@example.com', password: '[REDACTED]' });
  });

  it('carries the request context set after authentication', () => {
    lines = [];
    runWithLogContext({ request_id: 'req-2', route: '/v1/holds' }, () => {
      const ctx = logContext()!;
      ctx.customer_id = 'cust';
      ctx.agent_id = 'agent';
      log.warn('late');
    });
    expect(JSON.parse(lines[0])).toMatchObject({ request_id: 'req-2', route: '/v1/holds', customer_id: 'cust', agent_id: 'agent' });
  });

  it('adds the active span\'s trace id when an OpenTelemetry context is active', () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      lines = [];
      const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED });
      context.with(trace.setSpan(context.active(), span), () => log.info('traced'));
      log.info('untraced');
      expect(JSON.parse(lines[0])).toMatchObject({ trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' });
      expect(JSON.parse(lines[1]).trace_id).toBeUndefined();
    } finally {
      context.disable();
    }
  });

  it('LOG_LEVEL sets the lowest level written; `silent` keeps warnings and errors', () => {
    lines = [];
    process.env.LOG_LEVEL = 'info';
    log.debug('hidden');
    log.info('shown');
    process.env.LOG_LEVEL = 'silent';
    log.info('hidden too');
    log.warn('still shown');
    process.env.LOG_LEVEL = 'debug';
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['shown', 'still shown']);
  });
});
