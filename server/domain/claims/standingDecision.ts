import type { ClaimRow } from './claimStore';

/**
 * Whether a hold's decision still stands at its confirm, so the confirm promotes it without
 * arbitrating again (docs/arbitration.md "Confirm: when the hold's decision stands"). A pure
 * rule on what the confirm's one read returned (the locked owner, the hold, the class the
 * booking takes) and the clock. Every input the arbiter reads is either versioned (stamped on
 * the hold when it was decided, compared here) or shown below not to change the verdict; any
 * doubt answers false, and the confirm arbitrates in full exactly as before.
 *
 * - The owner's rules (time zone, working hours, hard blocks, daily limit): rules_version.
 * - The meeting class (priority, preempt policy, sacred age, ...): its version, and the
 *   booking must take the hold's own class (a confirm naming another class re-arbitrates).
 * - The provider mirror (busy time, which calendars count): the owner's mirror_version.
 * - The claims around: none can overlap the held range while the hold is active (the
 *   exclusion constraint); every claim decided since counted the hold's minutes toward the
 *   daily limit, and claims leaving only lower the day's total. A hold that gave way, expired
 *   or was released never gets here (its status is refused first).
 * - The slot: exactly the held range, whose decision was exactly this slot's (a candidate
 *   hold; a window hold whose range is its duration). Any other slot inside a held window, or
 *   in a further range of an all_free hold, was never arbitrated as such: full arbitration.
 * - The clock: a slot whose start has passed is PAST_TIME, so the start must be now or later.
 *   The mirror's freshness (fail closed) is still checked by the confirm's read of the busy
 *   time, which runs either way; sacred-by-age only matters for overlapping claims (none).
 * - The agent: another agent of the customer confirming re-arbitrates (its policy and
 *   permissions were not the hold's). The same agent's permissions only matter for
 *   overlapping lower claims (none), and scopes are checked before any decision.
 * - Attendees, title, description: the arbiter never reads them.
 * - Group holds are decided together (docs/groups.md) and never stamped.
 */
export type StandingFacts = {
  owner: { rulesVersion: number; mirrorVersion: number };
  meetingClass: { id: string; version: number };
  agentId: string;
  start: Date;
  end: Date;
  now: Date;
};

type StampedHold = Pick<ClaimRow, 'agentId' | 'meetingClassId' | 'startAt' | 'endAt' | 'holdScope' | 'durationMinutes' | 'groupId' | 'decidedRulesVersion' | 'decidedClassVersion' | 'decidedMirrorVersion'>;

export function holdDecisionStands(hold: StampedHold, facts: StandingFacts): boolean {
  if (hold.decidedRulesVersion === null || hold.decidedClassVersion === null || hold.decidedMirrorVersion === null) return false;
  if (hold.groupId) return false;
  if (hold.decidedRulesVersion !== facts.owner.rulesVersion || hold.decidedMirrorVersion !== facts.owner.mirrorVersion) return false;
  if (hold.meetingClassId !== facts.meetingClass.id || hold.decidedClassVersion !== facts.meetingClass.version) return false;
  if (hold.agentId !== facts.agentId) return false;
  const start = facts.start.getTime();
  const end = facts.end.getTime();
  if (start !== hold.startAt.getTime() || end !== hold.endAt.getTime()) return false;
  if (hold.holdScope === 'window' && (hold.durationMinutes ?? 0) * 60_000 !== end - start) return false;
  return start >= facts.now.getTime();
}

/** The stamp a hold carries: what its decision was taken on (null columns when the caller has none: full arbitration at confirm). */
export function decisionStamp(owner: { rulesVersion: number; mirrorVersion: number }, meetingClass: { version: number }) {
  return { decidedRulesVersion: owner.rulesVersion, decidedClassVersion: meetingClass.version, decidedMirrorVersion: owner.mirrorVersion };
}
