'use client';

import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';

/** What the tRPC errorFormatter puts in `error.data.domain` (server/trpc/init.ts). */
export type DomainErrorInfo = { code: string; message: string; details?: { fields?: { path: string; message: string }[] } };

/** The DomainError (code, message, details) behind a failed tRPC call, or a plain message for anything else. */
export function domainErrorOf(err: unknown): DomainErrorInfo {
  const e = err as { data?: { domain?: DomainErrorInfo | null; zodError?: unknown }; message?: string } | null;
  if (e?.data?.domain) return e.data.domain;
  return { code: 'error', message: e?.message ?? 'Something went wrong' };
}

/** A domain field path ("body.owner_scope", "working_hours.mon[0]") as a form field name ("owner_scope", "working_hours.mon.0"). */
export function formPath(path: string): string {
  return path.replace(/^(body|query)\./, '').replace(/\[(\d+)\]/g, '.$1');
}

/**
 * Put a server refusal where the person looks: each field the domain named
 * under its control, else the whole message under `fallback` (a field or
 * "root"). Answers the message shown.
 */
export function showServerError<T extends FieldValues>(err: unknown, setError: UseFormSetError<T>, fallback: Path<T> | 'root', fieldMap: Record<string, Path<T>> = {}): string {
  const d = domainErrorOf(err);
  const fields = d.details?.fields ?? [];
  if (fields.length) {
    for (const f of fields) {
      const name = fieldMap[d.code] ?? (formPath(f.path) as Path<T>);
      setError(name, { type: 'server', message: f.message });
    }
    return d.message;
  }
  setError(fieldMap[d.code] ?? fallback, { type: 'server', message: d.message });
  return d.message;
}
