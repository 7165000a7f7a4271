import type { AdminAction, AdminChange } from '../../adminAudit';
import type { LinkRecord } from './links';
import { meetingTypeView, type MeetingTypeRecord } from './meetingTypeView';

/** The audit entry of a change to a meeting type, about the owner of its link; an update names the values before it (`before`, docs/api.md "Audit log"). */
export function meetingTypeChange(action: AdminAction, { link, owner }: LinkRecord, r: MeetingTypeRecord, now: Date, before?: MeetingTypeRecord): AdminChange {
  return {
    action,
    customerId: link.customerId,
    owner,
    meetingClass: r.meetingClass.name,
    details: { link_id: link.id, meeting_type_id: r.type.id, ...facts(r), ...(before ? { before: facts(before) } : {}) },
    at: now,
  };
}

/** What a meeting type is, as its audit rows record it: its API view less ids and bookkeeping (so an update's diff is its settings). */
function facts(r: MeetingTypeRecord): Record<string, unknown> {
  const { link_id: _link, effective_preempt_policy: _effective, created_at: _created, updated_at: _updated, ...settings } = meetingTypeView(r);
  return settings;
}
