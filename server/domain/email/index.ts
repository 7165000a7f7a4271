export { sendMail, closeMailer, mailSetupNotice, type MailMessage, type MailResult } from './mailer';
export { contactVerificationMessage, ownerInvitationMessage, proposalOutcomeMessage, signInLinkMessage, type MeetingSummary } from './messages';
