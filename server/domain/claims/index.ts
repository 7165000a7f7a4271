/**
 * The one public entry of claims/ (docs/architecture.md "Claims"): what code outside the folder
 * uses, and all it may import from it (the dependency-cruiser rule `claims-through-its-index`).
 * Inside claims/, files import each other directly.
 */

// Claim operations: each a ClaimOperation the claim runner runs (claimRunner.ts).
export { holdClaim, getHold, extendHold } from './holdService';
export { bookingClaim, createBooking, getBooking, newBooking, type BookingInput } from './bookingService';
export { groupBookingClaim, applyBookings } from './groupService';
export { confirmClaim } from './holdConfirm';
export { cancelClaim, releaseClaim, ownerCancelGroup, ownerCancelSeries } from './groupLifecycle';
export { bookingOwner, rescheduleClaim, type Mover } from './rescheduleService';
export { updateBooking } from './bookingEdit';
export { seriesBookingClaim, seriesHoldClaim, announceSeries, keepSeries, minimumOf, occurrencesOf, type SeriesView } from './seriesService';
export { seriesConfirmClaim, seriesRescheduleClaim } from './seriesLifecycle';
export { groupSeriesBookingClaim } from './groupSeries';
export type { CancelScope } from './seriesCancel';

// The claim path's parts, for the claims decided elsewhere (pools, public scheduling, the waitlist).
export { runClaimOperation, ownerQueueKey, GateRefusal, type Answer, type ClaimOperation, type GateOwner } from './claimRunner';
export { runAnsweredClaim, runAnsweredTransaction, redact, type ClaimCall, type KeyAnswer } from './answeredClaim';
export { runClaim, type ClaimRequest, type ClaimResult } from './claimDecision';
export { decideMembers, type MemberPlan } from './groupVerdict';
export { inconsistentSeries, occurrenceClaim, refusedOccurrences, seriesItem, seriesRefusal, type RefusedOccurrence, type Verdict } from './seriesDecision';
export { claimMadeWithKey, type NewClaim } from './claimStore';
export {
  ARBITRATION_MARGIN_MS,
  expireDueHolds,
  loadAround,
  loadClaims,
  loadTarget,
  loadTargets,
  lockOwner,
  nextHoldExpiry,
  ownerRules,
  requestPolicy,
  resolveCalendar,
  rulesWarnings,
  type ClaimRow,
  type LoadedClaim,
  type SchedulingTarget,
} from './claimTarget';
export { loadGroupClaims } from './groupFacts';
export { DEFAULT_LOOKAHEAD_HOURS, assertBookingSpan, noSlotsError, validateWindow } from './windows';

// Freed time and the waitlist's offers (docs/arbitration.md "Waitlist").
export { noteFreed } from './freed';
export { offerFreed } from './waitlist/offers';
export { mailOffers } from './waitlist/offerMail';
export { entryPageUrl, newEntryToken, offerProposalToken } from './waitlist/entryToken';

// Reads: search, read-back and views.
export { searchAvailability, evaluateBooking, type AvailabilityInput, type AvailabilityResult } from './availabilityService';
export { searchGroupAvailability, type GroupAvailabilityInput } from './groupSearchService';
export type { SearchClock, SearchPhase } from './searchClock';
export { listBookings, listHolds } from './readBack';
export { bookingView, holdStatus, type BookingView } from './views';
