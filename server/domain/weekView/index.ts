export { ownerWeek, weekStartFor, type WeekView, type WeekDay, type WeekEvent, type Reviewer } from './week';
export { claimDetails, type ClaimDetails, type HistoryEntry } from './details';
export { cancelOwnBooking } from './cancel';
export { overlayCandidates, type CandidateOverlay } from './overlay';
export { moveOwnBooking } from './move';
export { coHosts, type CoHost } from './hosts';
