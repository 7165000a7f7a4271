export { resolveRequester, loadPublicLink, linkIdFor, type Requester } from './access';
export { publicSchedule, loadPublicType, suggestedTimes, assertSuggestable, publicRequestPolicy, MAX_SUGGESTED_TIMES, type PublicScheduleView, type PublicTypeContext } from './schedule';
export { submitProposal, VERIFICATION_TTL_MS, type SubmitInput, type SubmitResult } from './submit';
export { proposalStatus, proposalIdForToken, withdrawProposal, type PublicStatusView } from './status';
export { confirmContact, verificationIdForToken, verificationPage, type VerificationState } from './verification';
export { proposalStatusPage, meetingTypePage, type PublicProposalPage, type PublicMeetingTypePage } from './page';
export { bookedMeetingIcs, cancelBookedMeeting } from './meeting';
export { moveSuggestions, requestMove, type MoveRequestInput, type MoveRequestView } from './move';
