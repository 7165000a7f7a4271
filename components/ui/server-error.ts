import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';

/**
 * The one way the UI reads a server error (docs/dashboard.md "UI foundation").
 * It accepts what any call path throws:
 * - a tRPC client error: the errorFormatter (server/trpc/init.ts) puts the DomainError in `data.domain`;
 * - a server-side caller error (server components): the DomainError is the error itself or its `cause`;
 * - anything else: a plain message, with tRPC's own key (`BAD_REQUEST`, `NOT_FOUND`, ...) when there is one.
 * Structural checks only (no server import), so client bundles stay small.
 */
type ServerError = {
  /** The domain code (`rate_limited`, `PREEMPTION_NOT_CONFIRMED`, ...) or 'error' when the server named none. */
  code: string;
  message: string;
  reason?: string;
  /** Failing fields the domain named (its names, e.g. "body.owner_scope" or "meeting_class"). */
  fields: { path: string; message: string }[];
  /** Extra facts for the caller: `alternatives`, `displaced` (the preemption confirm), `next_available`, ... */
  extra: Record<string, unknown>;
  /** True when a DomainError stood behind the failure. */
  domain: boolean;
  /** tRPC's error key when the failure came through tRPC (`BAD_REQUEST`, `NOT_FOUND`, ...). */
  trpcCode?: string;
};

type DomainShape = { code: string; message: string; reason?: string; details?: unknown; extra?: Record<string, unknown>; fields?: readonly { field: string; message: string }[] };

function isDomainShape(v: unknown): v is DomainShape {
  return typeof v === 'object' && v !== null && (v as { name?: string }).name === 'DomainError' && typeof (v as { code?: unknown }).code === 'string';
}

function detailFields(details: unknown): { path: string; message: string }[] {
  const fields = (details as { fields?: unknown } | null | undefined)?.fields;
  return Array.isArray(fields) ? (fields as { path: string; message: string }[]) : [];
}

export function readServerError(err: unknown): ServerError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { data?: { domain?: DomainShape | null; code?: string } | null; cause?: unknown; code?: unknown; message?: string };
  const trpcCode = typeof e.data?.code === 'string' ? e.data.code : typeof e.code === 'string' && !isDomainShape(err) ? e.code : undefined;
  const client = e.data?.domain;
  if (client) {
    return { code: client.code, message: client.message, reason: client.reason, fields: detailFields(client.details), extra: client.extra ?? {}, domain: true, trpcCode };
  }
  const cause = isDomainShape(err) ? err : isDomainShape(e.cause) ? e.cause : null;
  if (cause) {
    const fields = cause.fields?.length ? cause.fields.map((f) => ({ path: f.field, message: f.message })) : detailFields(cause.details);
    return { code: cause.code, message: cause.message, reason: cause.reason, fields, extra: cause.extra ?? {}, domain: true, trpcCode };
  }
  return { code: 'error', message: e.message || 'Something went wrong', fields: [], extra: {}, domain: false, trpcCode };
}

/** The first clause of a server message as a sentence (the rest of an API message speaks of the response's fields). */
export function firstClause(message: string): string {
  return message.split(';')[0].replace(/\.?$/, '.');
}

/** A domain field path ("body.owner_scope", "working_hours.mon[0]") as a form field name ("owner_scope", "working_hours.mon.0"). */
function formPath(path: string): string {
  return path.replace(/^(body|query)\./, '').replace(/\[(\d+)\]/g, '.$1');
}

/**
 * Put a server refusal where the person looks: each field the domain named
 * under its control, else the whole message under `fallback` (a field or
 * "root"). Answers the message shown.
 */
export function showServerError<T extends FieldValues>(err: unknown, setError: UseFormSetError<T>, fallback: Path<T> | 'root', fieldMap: Record<string, Path<T>> = {}): string {
  const d = readServerError(err);
  if (d.fields.length) {
    for (const f of d.fields) {
      const name = fieldMap[d.code] ?? (formPath(f.path) as Path<T>);
      setError(name, { type: 'server', message: f.message });
    }
    return d.message;
  }
  setError(fieldMap[d.code] ?? fallback, { type: 'server', message: d.message });
  return d.message;
}
