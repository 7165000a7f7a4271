export { listPendingProposals, getProposalForReview, reviewerTimeZone, findOwnProposal, type Reviewer, type PendingProposalView } from './owner';
export { approveProposal, declineProposal, type ApproveInput, type ReviewResult } from './reviewDecision';
export { createAgentProposal, getAgentProposal, MAX_PROPOSAL_CANDIDATES, type AgentProposalInput, type AgentProposalView } from './agent';
export { sweepExpiredProposals, verificationLapsed } from './expiry';
