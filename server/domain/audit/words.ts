import type { AuditAction } from '@/db/schema';

/**
 * The audit log in words (docs/dashboard.md "Audit log"): what each action is called, which
 * object it was about, and what it changed, old value beside new, from the row's own details.
 * Pure: the dashboard's page renders it, the booking's History tells the same rows its own way
 * (../weekView/history.ts). A new action must be named here (the table is checked by type).
 */
export const AUDIT_ACTION_WORDS = {
  'hold.create': 'Time held',
  'booking.confirm': 'Hold confirmed as a booking',
  'booking.create': 'Meeting booked',
  'booking.cancel': 'Meeting cancelled',
  'booking.reschedule': 'Meeting moved',
  'booking.update': 'Meeting edited',
  'hold.extend': 'Hold extended',
  'claim.preempt': 'Meeting bumped by a higher priority',
  'booking.request': 'Time held for the owner to approve',
  'proposal.create': 'Meeting request made by an agent',
  'proposal.submit': 'Meeting request sent',
  'proposal.contact_verify': 'Requester confirmed their email',
  'proposal.withdraw': 'Meeting request withdrawn',
  'proposal.review': 'Meeting request approved',
  'proposal.decline': 'Meeting request declined',
  'proposal.expire': 'Meeting request expired',
  'request.denied': 'Request refused (permission or owner scope)',
  'owner.create': 'Owner added',
  'owner.invite': 'Owner invited to the dashboard',
  'schedule_rules.replace': 'Schedule changed',
  'meeting_class.create': 'Meeting class added',
  'meeting_class.update': 'Meeting class changed',
  'pool.create': 'Pool created',
  'pool.update': 'Pool changed',
  'pool.delete': 'Pool deleted',
  'agent.create': 'Agent added',
  'agent.update': 'Agent changed',
  'api_key.mint': 'API key created',
  'api_key.revoke': 'API key revoked',
  'public_link.create': 'Public link created',
  'public_link.update': 'Public link changed',
  'public_link.delete': 'Public link deleted',
  'public_meeting_type.create': 'Meeting type created',
  'public_meeting_type.update': 'Meeting type changed',
  'domain.create': 'Domain added',
  'domain.verify': 'Domain verified',
  'domain.delete': 'Domain removed',
  'requester_identity.create': 'Requester added',
  'requester_credential.mint': 'Requester credential created',
  'requester_credential.revoke': 'Requester credential revoked',
  'audience.create': 'Audience created',
  'audience.update': 'Audience changed',
  'audience.delete': 'Audience deleted',
  'allocation.create': 'Allocation added',
  'allocation.delete': 'Allocation removed',
  'approval_policy.create': 'Approval rule added',
  'approval_policy.delete': 'Approval rule removed',
} as const satisfies Record<AuditAction, string>;

/** What was tried, for a decision that was refused or answered with other times ("Refused: Book a meeting"). */
const ATTEMPT_WORDS: Partial<Record<AuditAction, string>> = {
  'hold.create': 'Hold time',
  'booking.confirm': 'Confirm a hold',
  'booking.create': 'Book a meeting',
  'booking.request': 'Book a meeting (needs approval)',
  'booking.cancel': 'Cancel a meeting',
  'booking.reschedule': 'Move a meeting',
  'booking.update': 'Edit a meeting',
  'hold.extend': 'Extend a hold',
  'proposal.create': 'Request a meeting',
  'proposal.submit': 'Send a meeting request',
  'proposal.review': 'Approve a meeting request',
};

/** Each outcome in words (the audit page's badge and filter). */
export const AUDIT_OUTCOME_WORDS = { accept: 'Accepted', reject: 'Refused', counter_propose: 'Other times offered', denied: 'Denied' } as const;

/** One changed value: the field in words, the old value and the new one (null: none before, or gone after); `instant`: both are ISO instants, for the page to write in the viewer's zone. */
type AuditChange = { field: string; before: string | null; after: string | null; instant?: true };
type Span = { start: string; end: string };

/** What the page shows of one audit row besides who acted and when. */
export type AuditWords = {
  /** The action in words ("Meeting moved"); for a refusal, what was tried ("Book a meeting"). */
  title: string;
  /** The object it was about, by its name ("Intro call" (intro), pool "Sales"); null when the row's owner or time says it. */
  subject: string | null;
  /** Old and new values; a move's times are in `moved`, for the page to write in the viewer's zone. */
  changes: AuditChange[];
  moved: { from: Span; to: Span } | null;
};

/** Field names in words where snake_case does not read well. */
const FIELD_WORDS: Record<string, string> = {
  owner_scope: 'owner scope',
  min_notice_hours: 'minimum notice (hours)',
  duration_minutes: 'duration (minutes)',
  buffer_before_minutes: 'buffer before (minutes)',
  buffer_after_minutes: 'buffer after (minutes)',
  attendee_limit: 'attendee limit',
  public_preempt_policy: 'may bump meetings',
  book_instantly: 'book instantly',
  repeat_weekly_max_weeks: 'repeat weekly (most weeks)',
  host_mode: 'hosts',
  host_emails: 'host emails',
  credential_skips_verification: 'credential skips verification',
  expires_at: 'expires',
  on_preempted: 'when bumped',
};
/** Identifiers and bookkeeping: never shown as a change. */
const NOT_A_CHANGE = new Set(['before', 'group_id', 'link_id', 'meeting_type_id', 'pool_id', 'agent_id', 'key_id', 'identity_id', 'credential_id', 'domain_id', 'audience_id', 'created_at']);

const fieldWords = (k: string) => FIELD_WORDS[k] ?? k.replace(/_/g, ' ');

/** A stored value in words: yes/no, a list joined, members by email, "none" for nothing. */
export function valueWords(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.length ? v.map((x) => valueWords(memberName(x)) ?? '—').join(', ') : null;
  return JSON.stringify(v);
}

/** A pool's or audience's member by its email (or domain) with its weight, when it has them. */
function memberName(x: unknown): unknown {
  if (typeof x !== 'object' || x === null) return x;
  const m = x as { email?: unknown; owner_email?: unknown; domain?: unknown; weight?: unknown };
  const who = m.owner_email ?? m.email ?? m.domain;
  if (typeof who !== 'string') return x;
  return typeof m.weight === 'number' ? `${who} (weight ${m.weight})` : who;
}

function span(v: unknown): Span | null {
  const s = v as { start?: unknown; end?: unknown } | null | undefined;
  return typeof s?.start === 'string' && typeof s.end === 'string' ? { start: s.start, end: s.end } : null;
}

const text = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** The object a row is about, by name, from its details. */
function subjectOf(action: AuditAction, d: Record<string, unknown>): string | null {
  const title = text(d.title);
  if (action.startsWith('public_meeting_type.')) return title && text(d.slug) ? `"${title}" (${d.slug})` : (title ?? text(d.slug));
  if (action.startsWith('public_link.')) return text(d.alias) ? `${title ? `"${title}" ` : ''}/${d.alias}` : title;
  if (action.startsWith('api_key.') || action.startsWith('requester_credential.')) return text(d.prefix) ? `key ${d.prefix}…` : text(d.name);
  return text(d.name) ?? text(d.domain) ?? (action === 'requester_identity.create' ? text(d.email) : null);
}

/** Old and new values: an update's `before` against its new facts, a booking edit's new values, a hold's new expiry. */
function changesOf(action: AuditAction, d: Record<string, unknown>): AuditChange[] {
  const before = d.before;
  if (before && typeof before === 'object' && !Array.isArray(before)) {
    const old = before as Record<string, unknown>;
    return Object.keys({ ...old, ...d })
      .filter((k) => !NOT_A_CHANGE.has(k) && JSON.stringify(old[k] ?? null) !== JSON.stringify(d[k] ?? null))
      .map((k) => ({ field: fieldWords(k), before: valueWords(old[k]), after: valueWords(d[k]) }));
  }
  if (action === 'booking.update') {
    return Object.entries(d)
      .filter(([k]) => !NOT_A_CHANGE.has(k))
      .flatMap(([k, v]): AuditChange[] => {
        if (k !== 'attendees' || typeof v !== 'object' || v === null) return [{ field: fieldWords(k), before: null, after: valueWords(v) }];
        const { added, removed } = v as { added?: unknown[]; removed?: unknown[] };
        return [
          ...(added?.length ? [{ field: 'attendees added', before: null, after: valueWords(added) }] : []),
          ...(removed?.length ? [{ field: 'attendees removed', before: valueWords(removed), after: null }] : []),
        ];
      });
  }
  if (action === 'hold.extend') return [{ field: fieldWords('expires_at'), before: valueWords(d.expires_at_before), after: valueWords(d.expires_at), instant: true }];
  return [];
}

/** One audit row in words. */
export function auditWords(row: { action: AuditAction; outcome?: string; details: Record<string, unknown> | null }): AuditWords {
  const d = row.details ?? {};
  const tried = row.outcome !== undefined && row.outcome !== 'accept' ? ATTEMPT_WORDS[row.action] : undefined;
  const from = span(d.from);
  const to = span(d.to);
  return {
    title: tried ?? AUDIT_ACTION_WORDS[row.action] ?? row.action,
    subject: subjectOf(row.action, d),
    changes: changesOf(row.action, d),
    moved: row.action === 'booking.reschedule' && from && to ? { from, to } : null,
  };
}
