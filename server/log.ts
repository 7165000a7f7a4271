import { getConfig } from './config';

/** Minimal structured logger (one JSON line per event on stderr/stdout). */
type Fields = Record<string, unknown>;

function serialize(fields: Fields): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = v instanceof Error ? { name: v.name, message: v.message, stack: v.stack, cause: (v as { cause?: unknown }).cause instanceof Error ? String((v as { cause: Error }).cause) : undefined } : v;
  }
  return out;
}

function emit(level: 'info' | 'warn' | 'error', msg: string, fields: Fields = {}) {
  const line = JSON.stringify({ level, at: new Date().toISOString(), msg, ...serialize(fields) });
  if (level === 'error' || level === 'warn') console.error(line);
  else if (getConfig().logLevel !== 'silent') console.log(line);
}

export const log = {
  info: (msg: string, fields?: Fields) => emit('info', msg, fields),
  warn: (msg: string, fields?: Fields) => emit('warn', msg, fields),
  error: (msg: string, fields?: Fields) => emit('error', msg, fields),
};
