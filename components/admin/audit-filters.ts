/** The audit page's URL filters and their translation to admin.audit.query input (shared by the page and the CSV export). */
export type AuditSearch = { action?: string; outcome?: string; agent_id?: string; owner_email?: string; from?: string; to?: string; cursor?: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const OUTCOMES = ['accept', 'reject', 'counter_propose'] as const;

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

/** Only well-formed filters pass; dates are whole UTC days (to is inclusive). */
export function auditQueryInput(s: AuditSearch, limit: number) {
  return {
    limit,
    ...(s.action ? { action: s.action.slice(0, 64) } : {}),
    ...(OUTCOMES.includes(s.outcome as (typeof OUTCOMES)[number]) ? { outcome: s.outcome as (typeof OUTCOMES)[number] } : {}),
    ...(s.agent_id ? { agent_id: s.agent_id.slice(0, 64) } : {}),
    ...(s.owner_email ? { owner_email: s.owner_email } : {}),
    ...(s.from && DATE.test(s.from) ? { from: `${s.from}T00:00:00.000Z` } : {}),
    ...(s.to && DATE.test(s.to) ? { to: nextDay(s.to) } : {}),
    ...(s.cursor ? { cursor: s.cursor.slice(0, 512) } : {}),
  };
}

export const AUDIT_ACTIONS = ['hold.create', 'booking.confirm', 'booking.create', 'booking.cancel', 'proposal.create', 'proposal.review'];

/** The filters as a query string (cursor dropped unless given). */
export function auditSearchString(s: AuditSearch, extra: Partial<AuditSearch> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...s, cursor: undefined, ...extra })) if (v) p.set(k, v);
  const q = p.toString();
  return q ? `?${q}` : '';
}
