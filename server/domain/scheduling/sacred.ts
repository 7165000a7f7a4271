/**
 * Sacred (protected) bookings. A booking is sacred if ANY of:
 * - its source is 'provider' (created directly in the calendar provider, imported by sync);
 * - at least one external attendee accepted it;
 * - its age (now - createdAt) exceeds its class's sacred_meeting_age_hours (default 24).
 *   With 0 hours every booking of the class is sacred as soon as it exists (age >= 0 suffices);
 *   otherwise the age must be strictly greater than the limit (exactly 24 h old is not yet sacred).
 *   A createdAt in the future (clock skew) never makes a booking sacred by age (unless 0 hours).
 * Holds are never sacred: callers pass sacred:false for hold claims without calling this.
 */
const DEFAULT_SACRED_MEETING_AGE_HOURS = 24;

export type SacredInput = {
  /** Epoch ms the booking was created (confirmed). */
  createdAt: number;
  externalAccepted: boolean;
  source: 'agent' | 'public' | 'provider';
};

export function isSacred(booking: SacredInput, sacredMeetingAgeHours: number | null | undefined, now: number): boolean {
  if (booking.source === 'provider') return true;
  if (booking.externalAccepted) return true;
  const hours = sacredMeetingAgeHours ?? DEFAULT_SACRED_MEETING_AGE_HOURS;
  if (hours <= 0) return true;
  return now - booking.createdAt > hours * 3_600_000;
}
