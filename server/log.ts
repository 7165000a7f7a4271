import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { getConfig, logLevelSetting } from './config';

/**
 * The service's logger (docs/operations.md "Logs"): pino, one JSON line per event with
 * `level`, `time`, `msg`, the request's context (`request_id`, `route` template, `method`,
 * `customer_id`, `agent_id`), the active trace's `trace_id`/`span_id` when an OpenTelemetry
 * SDK is running, and the call site's fields. Secrets never reach a line: values under
 * secret-named keys (any depth) and the paths of REDACT_PATHS are replaced, and every string
 * is censored for secret shapes (`ak_`, `rc_`, `pt_`, `cv_`, `whsec_` and URL passwords).
 * Info and below go to stdout, warnings and errors to stderr; `npm run dev` pretty-prints
 * (pino-pretty). LOG_LEVEL sets the lowest level written.
 *
 * Call sites: `log.info(msg, fields)`, `log.warn(...)`, `log.error(...)`, `log.debug(...)`.
 */
export type LogFields = Record<string, unknown>;

/** What a request's lines carry; set by the transports (server/http/handler.ts) with runWithLogContext. */
export type LogContext = {
  request_id?: string;
  /** The route template (`/v1/bookings/{hold_id}/confirm`, `trpc:dashboard.x`): never the raw path, which can hold tokens. */
  route?: string;
  method?: string;
  customer_id?: string;
  agent_id?: string;
  /** A trace id the transport already knows (e.g. taken from the request); the active span's wins. */
  trace_id?: string;
};

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
const LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** The censor's replacement text. */
const REDACTED = '[REDACTED]';

/**
 * Paths pino redacts (fast-redact syntax) on top of the key-name rule below: request and
 * header objects as libraries hand them over.
 */
const REDACT_PATHS = [
  'authorization',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.api_key',
];

/** Keys whose values are secrets whatever they look like (matched at any depth, case-insensitive, by ending). */
const SECRET_KEY = /(authorization|cookie|passw(or)?d|secret|token|credentials?|api_?key|bearer|smtp_?url|database_?url)$/i;
/** Secrets by shape: the service's prefixed secrets (server/domain/ids.ts SECRET_PREFIX). */
const SECRET_SHAPE = /\b(ak|rc|pt|cv|whsec)_[A-Za-z0-9_-]{6,}/g;
/** The password of a URL (`scheme://user:password@host`). */
const URL_PASSWORD = /(\/\/[^:/\s@]*:)[^@\s/]+@/g;
const MAX_DEPTH = 8;

/** A string with every secret-shaped part replaced. */
function censorText(text: string): string {
  if (!text.includes('_') && !text.includes('@')) return text;
  return text.replace(SECRET_SHAPE, `$1_${REDACTED}`).replace(URL_PASSWORD, `$1${REDACTED}@`);
}

/**
 * A copy of `value` fit for a log line: Errors as plain objects (name, message, stack,
 * code, cause), values under secret-named keys replaced, secret shapes censored in every
 * string. Exported for the redaction tests.
 */
function sanitize(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return censorText(value);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? String(value) : value;
  if (depth >= MAX_DEPTH) return '[depth]';
  if (value instanceof Error) {
    const e = value as Error & { code?: unknown; cause?: unknown };
    return {
      type: e.name,
      message: censorText(e.message),
      ...(e.stack ? { stack: censorText(e.stack) } : {}),
      ...(e.code !== undefined ? { code: sanitize(e.code, depth + 1) } : {}),
      ...(e.cause !== undefined ? { cause: sanitize(e.cause, depth + 1) } : {}),
    };
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => sanitize(v, depth + 1));
  if (value instanceof URL) return censorText(value.toString());
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined && v !== '' ? REDACTED : sanitize(v, depth + 1);
  return out;
}

type LogState = { context: AsyncLocalStorage<LogContext>; destination: DestinationStream | null; logger: Logger | null };
const STATE = Symbol.for('agent-scheduler.log');
/** On globalThis: Next bundles instrumentation.ts and the routes apart, and both must share one context and sink. */
const state: LogState = ((globalThis as Record<symbol, LogState | undefined>)[STATE] ??= {
  context: new AsyncLocalStorage<LogContext>(),
  destination: null,
  logger: null,
});

/** Run `fn` with `ctx` on every line logged inside it (and in what it awaits). */
export function runWithLogContext<T>(ctx: LogContext, fn: () => T): T {
  return state.context.run(ctx, fn);
}

/** The current request's context, to add to (`customer_id` and `agent_id` once the key is known). */
export function logContext(): LogContext | undefined {
  return state.context.getStore();
}

/**
 * Send every line to `destination` (one JSON line per write), or back to stdout/stderr with
 * null. Tests capture the run's log with it (tests/helpers/logCapture.ts).
 */
export function setLogDestination(destination: DestinationStream | null): void {
  state.destination = destination;
  state.logger = null;
}

/** Where lines go now (null: stdout/stderr), so a test can tee it and put it back. */
export function logDestination(): DestinationStream | null {
  return state.destination;
}

function mixin(): Record<string, unknown> {
  const ctx = state.context.getStore();
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) return { ...ctx, trace_id: span.traceId, span_id: span.spanId };
  return ctx ?? {};
}

function levelOf(setting: string): Level {
  if (setting === 'silent') return 'warn'; // the older meaning: info hidden, warnings and errors still written
  return (LEVELS.includes(setting) ? setting : 'info') as Level;
}

function prettyStream(): DestinationStream | null {
  try {
    // A development dependency, loaded only under `npm run dev` (NODE_ENV=development).
    const pretty = createRequire(import.meta.url)('pino-pretty') as (opts: object) => DestinationStream;
    return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: 2 });
  } catch {
    return null;
  }
}

function createLogger(level: Level): Logger {
  const options = {
    level,
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    // Errors are already plain objects (sanitize); pino's own `err` serializer would rename their type.
    serializers: { err: (e: unknown) => e },
    mixin,
  };
  if (state.destination) return pino(options, state.destination);
  const pretty = getConfig().development ? prettyStream() : null;
  if (pretty) return pino(options, pretty);
  // dedupe: a line goes to the stream of the highest level it reaches (info to stdout, warn+ to stderr).
  return pino(
    options,
    pino.multistream(
      [
        { level: 'trace', stream: pino.destination({ fd: 1, sync: true }) },
        { level: 'warn', stream: pino.destination({ fd: 2, sync: true }) },
      ],
      { dedupe: true },
    ),
  );
}

function logger(): Logger {
  const level = levelOf(logLevelSetting());
  if (!state.logger) state.logger = createLogger(level);
  else if (state.logger.level !== level) state.logger.level = level;
  return state.logger;
}

function emit(level: Level, msg: string, fields?: LogFields, uncensored?: Record<string, string>): void {
  const l = logger();
  if (!l.isLevelEnabled(level)) return;
  const clean = fields ? (sanitize(fields) as Record<string, unknown>) : {};
  l[level](uncensored ? { ...clean, ...uncensored } : clean, censorText(msg));
}

export const log = {
  debug: (msg: string, fields?: LogFields) => emit('debug', msg, fields),
  info: (msg: string, fields?: LogFields) => emit('info', msg, fields),
  warn: (msg: string, fields?: LogFields) => emit('warn', msg, fields),
  error: (msg: string, fields?: LogFields) => emit('error', msg, fields),
  /**
   * Development only (`npm run dev`): an info line whose `uncensored` fields keep their
   * secret-shaped values, for mail written to the log so its links can be followed
   * (docs/operations.md "Logs"). Everywhere else it is `log.info` with every field censored.
   */
  infoForDeveloper: (msg: string, fields: LogFields, uncensored: Record<string, string>, development: boolean) =>
    development ? emit('info', msg, fields, uncensored) : emit('info', msg, { ...fields, ...uncensored }),
};
