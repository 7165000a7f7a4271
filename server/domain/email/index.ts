export { sendMail, closeMailer, type MailMessage, type MailResult } from './mailer';
export { contactVerificationMessage, proposalOutcomeMessage, type MeetingSummary } from './messages';
