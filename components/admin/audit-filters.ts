import { zonedWallTimeToIso } from '@/components/ui/time-format';
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, AuditDateRange } from '@/server/schemas/scheduling';

/** The audit page's URL filters and their translation to admin.audit.query input (shared by the page, its form and the CSV export). */
export type AuditSearch = { action?: string; outcome?: string; actor_kind?: string; agent_id?: string; owner_email?: string; from?: string; to?: string; cursor?: string };

/** Every action the log records (the one list in db/schema/audit.ts, as the API's `action` filter takes it). */
export { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS };
export const AUDIT_OUTCOMES = ['accept', 'reject', 'counter_propose', 'denied'] as const;

type Action = (typeof AUDIT_ACTIONS)[number];
type Outcome = (typeof AUDIT_OUTCOMES)[number];
type ActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = <T extends string>(list: readonly T[], v: string | undefined): v is T => v !== undefined && (list as readonly string[]).includes(v);

function nextDate(date: string): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Local midnight of a YYYY-MM-DD day in `timeZone`, as a UTC instant. */
function dayStart(date: string, timeZone: string): string | undefined {
  return zonedWallTimeToIso(`${date}T00:00`, timeZone) ?? undefined;
}

/**
 * The first problem with the date filters by the rule the server applies to from/to
 * (AuditDateRange, server/schemas/scheduling.ts), keyed by field, or null. The form shows it
 * before submitting; the page shows the server's own refusal the same way.
 */
export function dateRangeError(s: Pick<AuditSearch, 'from' | 'to'>): { field: 'from' | 'to'; message: string } | null {
  const r = AuditDateRange.safeParse({ from: s.from || undefined, to: s.to || undefined });
  if (r.success) return null;
  const issue = r.error.issues[0];
  return { field: issue?.path[0] === 'to' ? 'to' : 'from', message: issue?.message ?? 'Invalid dates' };
}

/**
 * Only well-formed filters pass; dates are whole days in the owner's zone (`to` inclusive),
 * sent as the instants of their local midnights. A reversed range is sent as it is: the
 * server refuses it (400 / BAD_REQUEST on `from`).
 */
export function auditQueryInput(s: AuditSearch, limit: number, timeZone: string) {
  return {
    limit,
    ...(oneOf<Action>(AUDIT_ACTIONS, s.action) ? { action: s.action } : {}),
    ...(oneOf<Outcome>(AUDIT_OUTCOMES, s.outcome) ? { outcome: s.outcome } : {}),
    ...(oneOf<ActorKind>(AUDIT_ACTOR_KINDS, s.actor_kind) ? { actor_kind: s.actor_kind } : {}),
    ...(s.agent_id ? { agent_id: s.agent_id.slice(0, 64) } : {}),
    ...(s.owner_email ? { owner_email: s.owner_email } : {}),
    ...(s.from && DATE.test(s.from) ? { from: dayStart(s.from, timeZone) } : {}),
    ...(s.to && DATE.test(s.to) ? { to: dayStart(nextDate(s.to), timeZone) } : {}),
    ...(s.cursor ? { cursor: s.cursor.slice(0, 512) } : {}),
  };
}

/** The filters as a query string (cursor dropped unless given). */
export function auditSearchString(s: AuditSearch, extra: Partial<AuditSearch> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...s, cursor: undefined, ...extra })) if (v) p.set(k, v);
  const q = p.toString();
  return q ? `?${q}` : '';
}
