export { ownerWeek, type WeekView, type WeekEvent } from './week';
export { claimDetails, type ClaimDetails } from './details';
export { cancelOwnBooking } from './cancel';
export { overlayCandidates, type CandidateOverlay } from './overlay';
export { moveOwnBooking } from './move';
export { seriesDetails, type SeriesOccurrenceView } from './series';
