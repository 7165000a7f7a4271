export { listPendingProposals, getProposalForReview, reviewerTimeZone, findOwnProposal, type Reviewer, type PendingProposalView } from './owner';
export { approveProposal } from './approve';
export { declineProposal, type ApproveInput, type ReviewResult } from './reviewDecision';
export { approvalTimes, approvalVerdicts, APPROVAL_SEARCH_DAYS, type ApprovalTimes, type ApprovalTimesInput } from './approvalTimes';
export { approvalTitle, type ApprovalVerdict, type DisplacedMeeting } from './approvalRules';
export { createAgentProposal, getAgentProposal, MAX_PROPOSAL_CANDIDATES, type AgentProposalInput, type AgentProposalView } from './agent';
export { announceForReview, reviewUrl } from './announce';
export { sweepExpiredProposals, verificationLapsed } from './expiry';
