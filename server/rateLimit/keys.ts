/**
 * The identifiers every transport counts a rate-limit policy against (docs/api.md "5. Rate
 * limits"): one builder per kind, so REST, tRPC, the token pages and sign-in share one spelling
 * and so one budget. An identifier names something that exists (a proposal, a verification, a
 * link), so made-up tokens add no keys to the store.
 */
export const rateLimitKeys = {
  /** The global per-client-address budget. */
  ip: (clientIp: string) => `ip:${clientIp}`,
  /** A per-API-key policy (search, holds, bookings, confirm). */
  apiKey: (keyId: string) => `key:${keyId}`,
  /** One public proposal: its status, withdraw, cancel, move and calendar file together. */
  proposal: (proposalId: string) => `proposal:${proposalId}`,
  /** One contact verification: its page and its POST. */
  verification: (verificationId: string) => `verification:${verificationId}`,
  /** Proposal submissions from one client address through one link. */
  submit: (clientIp: string, linkId: string) => `submit:${clientIp}:${linkId}`,
  /** Password sign-in attempts from one client address, and for one account (normalized email). */
  signInIp: (clientIp: string) => `signin-ip:${clientIp}`,
  signInAccount: (email: string) => `signin-account:${email}`,
  /** Emailed sign-in link requests from one client address, and for one account (normalized email). */
  signInLinkIp: (clientIp: string) => `signin-link-ip:${clientIp}`,
  signInLink: (email: string) => `signin-link:${email}`,
} as const;
