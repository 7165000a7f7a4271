export { listPendingProposals, getProposalForReview, reviewerTimeZone, type PendingProposalView } from './owner';
export { approveProposal } from './approve';
export { declineProposal } from './reviewDecision';
export { approvalTimes, approvalVerdicts } from './approvalTimes';
export { createAgentProposal, getAgentProposal } from './agent';
export { sweepExpiredProposals } from './expiry';
