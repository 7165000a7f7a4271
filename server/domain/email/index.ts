export { sendMail, closeMailer, mailSetupNotice, type MailMessage, type MailResult } from './mailer';
export { contactVerificationMessage, formatMailRange, hostBookedMessage, meetingMovedMessage, moveOutcomeMessage, moveToReviewMessage, ownerInvitationMessage, proposalOutcomeMessage, proposalToReviewMessage, requesterCancelledMessage, signInLinkMessage, type MeetingSummary } from './messages';
