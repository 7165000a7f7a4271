import { localIso, localSpan, type LocalSpan } from '../scheduling';
import type { ClaimRow } from './claimTarget';
import type { BookingVideoLinkRow } from '@/db/schema';
import { videoLinkView, videoLinkWarning, type VideoLinkView } from '../calendars/videoLinks';
import type { GroupMemberView } from '../notificationService';

/** A group hold or booking (docs/groups.md): its id and every member, one per owner. */
type GroupFields = { group_id?: string; members?: GroupMemberView[] };

export type HoldStatus = 'active' | 'promoted' | 'expired' | 'released' | 'preempted';

export type HoldView = {
  hold_id: string;
  hold_scope: 'candidate' | 'window';
  held_window: LocalSpan;
  /** Every range the hold claims, in start order (one, except for an all_free window hold). */
  held_windows: LocalSpan[];
  /** Window holds: first_fit or all_free. */
  coverage?: 'first_fit' | 'all_free';
  start_local: string;
  end_local: string;
  duration_minutes: number;
  expires_at: string;
  expires_in_seconds: number;
  resolved_calendar_type: string;
  owner_email: string;
  meeting_class: string;
  status: HoldStatus;
  booking_id: string | null;
  warnings?: string[];
  /** An occurrence of a recurring series (docs/arbitration.md "Recurring series"). */
  series_id?: string;
} & GroupFields;

export type BookingView = {
  booking_id: string;
  hold_id: string | null;
  owner_email: string;
  meeting_class: string | null;
  start: string;
  end: string;
  start_local: string;
  end_local: string;
  status: 'confirmed' | 'cancelled' | 'preempted';
  calendar_type: string;
  title: string | null;
  description: string | null;
  attendees: { email: string; name: string | null; response: string }[];
  created_at: string;
  preempted_booking_ids: string[];
  preempted_claims: { id: string; kind: 'hold' | 'booking' }[];
  warnings?: string[];
  /** Its video link (docs/calendars.md "Video links"), when its meeting type has one. */
  video?: VideoLinkView;
  /** An occurrence of a recurring series (docs/arbitration.md "Recurring series"). */
  series_id?: string;
} & GroupFields;

/** An active hold past its expiry reads as expired (the clock decides, not a job). */
export function holdStatus(row: ClaimRow, now: Date): HoldStatus {
  if (row.status === 'active' && row.expiresAt && row.expiresAt <= now) return 'expired';
  return row.status as HoldStatus;
}

/** A range of a hold: the hold's own row, or a further range of an all_free window hold. */
export type HoldRange = Pick<ClaimRow, 'startAt' | 'endAt'>;

export function holdView(
  row: ClaimRow,
  ctx: {
    ownerEmail: string;
    timeZone: string;
    meetingClass: string;
    calendarType: string;
    now: Date;
    warnings?: string[];
    parts?: readonly HoldRange[];
    /** A promoted hold's booking: the hold reads back as the time it became (docs/api.md "Reading back"). */
    booking?: HoldRange;
    /** A group hold: its members (docs/groups.md). */
    members?: GroupMemberView[];
  },
): HoldView {
  const expiresAt = row.expiresAt ?? row.endAt;
  const status = holdStatus(row, ctx.now);
  // Once promoted, the rest of a window (and an all_free hold's other ranges) was released: what
  // the hold claims now is the booked slot.
  const promoted = status === 'promoted' && ctx.booking ? ctx.booking : null;
  const main = promoted ?? row;
  const ranges = promoted ? [promoted] : [row, ...(ctx.parts ?? [])].sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
  const view: HoldView = {
    hold_id: row.id,
    hold_scope: row.holdScope ?? 'candidate',
    held_window: localSpan(main.startAt, main.endAt, ctx.timeZone),
    held_windows: ranges.map((r) => localSpan(r.startAt, r.endAt, ctx.timeZone)),
    ...(row.holdScope === 'window' ? { coverage: row.coverage ?? 'first_fit' } : {}),
    start_local: localIso(main.startAt.getTime(), ctx.timeZone),
    end_local: localIso(main.endAt.getTime(), ctx.timeZone),
    duration_minutes: row.durationMinutes ?? Math.round((row.endAt.getTime() - row.startAt.getTime()) / 60_000),
    expires_at: expiresAt.toISOString(),
    expires_in_seconds: status === 'active' ? Math.max(0, Math.floor((expiresAt.getTime() - ctx.now.getTime()) / 1000)) : 0,
    resolved_calendar_type: ctx.calendarType,
    owner_email: ctx.ownerEmail,
    meeting_class: ctx.meetingClass,
    status,
    booking_id: row.promotedBookingId,
  };
  if (ctx.warnings?.length) view.warnings = ctx.warnings;
  if (row.seriesId) view.series_id = row.seriesId;
  return withGroup(view, row, ctx.members);
}

/** A group member's answer carries the group's id and every member. */
function withGroup<V extends GroupFields>(view: V, row: Pick<ClaimRow, 'groupId'>, members: GroupMemberView[] | undefined): V {
  if (row.groupId) Object.assign(view, { group_id: row.groupId, members: members ?? [] });
  return view;
}

export function bookingView(
  row: ClaimRow,
  ctx: {
    ownerEmail: string;
    timeZone: string;
    meetingClass: string | null;
    calendarType: string;
    preemptedIds?: string[];
    preemptedClaims?: { id: string; kind: 'hold' | 'booking' }[];
    warnings?: string[];
    members?: GroupMemberView[];
    video?: BookingVideoLinkRow | null;
  },
): BookingView {
  const view: BookingView = {
    booking_id: row.id,
    hold_id: row.holdId,
    owner_email: ctx.ownerEmail,
    meeting_class: ctx.meetingClass,
    start: row.startAt.toISOString(),
    end: row.endAt.toISOString(),
    start_local: localIso(row.startAt.getTime(), ctx.timeZone),
    end_local: localIso(row.endAt.getTime(), ctx.timeZone),
    status: row.status as BookingView['status'],
    calendar_type: ctx.calendarType,
    title: row.title,
    description: row.description,
    attendees: row.attendees.map((a) => ({ email: a.email, name: a.name ?? null, response: a.response ?? 'needs_action' })),
    created_at: row.createdAt.toISOString(),
    preempted_booking_ids: ctx.preemptedIds ?? [],
    preempted_claims: ctx.preemptedClaims ?? (ctx.preemptedIds ?? []).map((id) => ({ id, kind: 'booking' as const })),
  };
  if (ctx.video) {
    view.video = videoLinkView(ctx.video, row.status === 'confirmed');
    const warning = videoLinkWarning(view.video);
    if (warning) view.warnings = [...(ctx.warnings ?? []), warning];
  }
  if (ctx.warnings?.length && !view.warnings) view.warnings = ctx.warnings;
  if (row.seriesId) view.series_id = row.seriesId;
  return withGroup(view, row, ctx.members);
}
