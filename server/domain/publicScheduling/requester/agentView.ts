import type { Executor } from '@/db/client';
import { listMeetingTypes } from '../admin';
import { loadPublicLink, typeListed } from './access';
import { meetingTypePage } from './page';

/**
 * What `/{alias}/llms.txt` tells an agent about a link (docs/public-scheduling.md "For agents"):
 * exactly what the link page shows anyone without a credential (its listed types: never an
 * unlisted or audience type), plus the facts a requester meets on the way to booking (minimum
 * notice, how the meeting happens). The location's kind only: its address or link is given once
 * booked, as on the pages. No ids, no emails.
 */
export type AgentLocation = 'google_meet' | 'microsoft_teams' | 'video_link' | 'in_person' | null;
export type AgentMeetingType = {
  slug: string;
  title: string;
  description: string | null;
  duration_minutes: number[];
  attendee_limit: number | null;
  min_notice_hours: number;
  location: AgentLocation;
  books_instantly: boolean;
  /** Who the requester meets, by display name (null: a pool member, picked on submission). */
  host_names: string | null;
};
export type AgentLinkView = { alias: string; title: string | null; owner_name: string | null; meeting_types: AgentMeetingType[] };

function locationKind(t: { videoProvider: string | null; location: string | null }): AgentLocation {
  if (t.videoProvider === 'google_meet' || t.videoProvider === 'microsoft_teams') return t.videoProvider;
  if (t.videoProvider === 'link') return 'video_link';
  if (t.location) return /^https?:\/\//i.test(t.location) ? 'video_link' : 'in_person';
  return null;
}

/** The link by alias or id, as an anonymous requester sees it; not_found as the pages. */
export async function agentLinkView(db: Executor, idOrAlias: string): Promise<AgentLinkView> {
  const link = await loadPublicLink(db, idOrAlias);
  const meeting_types: AgentMeetingType[] = [];
  for (const type of await listMeetingTypes(db, link.link.id)) {
    if (!(await typeListed(db, type, null))) continue;
    const t = type.type;
    const page = meetingTypePage({ link, type, requester: null });
    meeting_types.push({
      slug: t.slug,
      title: t.title,
      description: t.description,
      duration_minutes: t.durationMinutes,
      attendee_limit: t.attendeeLimit,
      min_notice_hours: t.minNoticeHours,
      location: locationKind(t),
      books_instantly: t.bookInstantly,
      host_names: page.owner_name,
    });
  }
  return { alias: link.link.alias, title: link.link.title, owner_name: link.owner.name, meeting_types };
}
