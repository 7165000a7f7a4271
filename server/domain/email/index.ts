export { sendMail, closeMailer, type MailMessage, type MailResult } from './mailer';
export { contactVerificationMessage, proposalOutcomeMessage, signInLinkMessage, type MeetingSummary } from './messages';
