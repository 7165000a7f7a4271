import type { HOST_MODES, meetingClasses, publicMeetingTypes, VideoProvider } from '@/db/schema';

export type MeetingTypeRow = typeof publicMeetingTypes.$inferSelect;
export type MeetingClassRow = typeof meetingClasses.$inferSelect;
export type PublicPreemptPolicy = MeetingTypeRow['publicPreemptPolicy'];
export type Visibility = MeetingTypeRow['visibility'];
export type HostMode = (typeof HOST_MODES)[number];
/** A meeting type with what it refers to by name (`hostEmails`: a collective type's hosts, in order; else empty). */
export type MeetingTypeRecord = { type: MeetingTypeRow; meetingClass: MeetingClassRow; audienceName: string | null; hostEmails: string[]; hostNames?: (string | null)[] };
/** A type's video meeting (docs/calendars.md "Video links"): made by the owner's Google or Microsoft calendar, or a fixed link (`url`). */
export type VideoSetting = { provider: VideoProvider; url: string | null };

/** The type's video setting, or null (an address, a phone number or nothing: `location`). */
export function videoSetting(t: Pick<MeetingTypeRow, 'videoProvider' | 'videoUrl'>): VideoSetting | null {
  return t.videoProvider ? { provider: t.videoProvider, url: t.videoUrl } : null;
}

export type MeetingTypeView = {
  link_id: string;
  slug: string;
  title: string;
  duration_minutes: number[];
  meeting_class: string;
  attendee_limit: number | null;
  public_preempt_policy: PublicPreemptPolicy;
  effective_preempt_policy: 'never' | 'preempt_lower';
  visibility: Visibility;
  audience: string | null;
  enabled: boolean;
  published: boolean;
  credential_skips_verification: boolean;
  description: string | null;
  location: string | null;
  video: VideoSetting | null;
  min_notice_hours: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  reminder_offsets_minutes: number[] | null;
  book_instantly: boolean;
  repeat_weekly_max_weeks: number | null;
  host_mode: HostMode;
  host_emails: string[];
  pool_id: string | null;
  created_at: string;
  updated_at: string;
};

/**
 * The policy bookings through a public type run with: `inherit` takes the
 * class's; a type may only be stricter, and is never looser than its class
 * even if the class changed after the type was saved.
 */
export function effectivePreemptPolicy(type: Pick<MeetingTypeRow, 'publicPreemptPolicy'>, meetingClass: Pick<MeetingClassRow, 'preemptPolicy'>): 'never' | 'preempt_lower' {
  if (type.publicPreemptPolicy === 'never' || meetingClass.preemptPolicy === 'never') return 'never';
  return 'preempt_lower';
}

export function meetingTypeView(r: MeetingTypeRecord): MeetingTypeView {
  const t = r.type;
  return {
    link_id: t.linkId,
    slug: t.slug,
    title: t.title,
    duration_minutes: t.durationMinutes,
    meeting_class: r.meetingClass.name,
    attendee_limit: t.attendeeLimit,
    public_preempt_policy: t.publicPreemptPolicy,
    effective_preempt_policy: effectivePreemptPolicy(t, r.meetingClass),
    visibility: t.visibility,
    audience: r.audienceName,
    enabled: t.enabled,
    published: t.published,
    credential_skips_verification: t.credentialSkipsVerification,
    description: t.description,
    location: t.location,
    video: videoSetting(t),
    min_notice_hours: t.minNoticeHours,
    buffer_before_minutes: t.bufferBeforeMinutes,
    buffer_after_minutes: t.bufferAfterMinutes,
    reminder_offsets_minutes: t.reminderOffsetsMinutes,
    book_instantly: t.bookInstantly,
    repeat_weekly_max_weeks: t.repeatWeeklyMaxWeeks,
    host_mode: t.hostMode,
    host_emails: r.hostEmails,
    pool_id: t.poolId,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
