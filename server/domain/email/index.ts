export { sendMail, closeMailer, mailSetupNotice, type MailMessage, type MailResult } from './mailer';
export { contactVerificationMessage, proposalOutcomeMessage, type MeetingSummary } from './messages';
