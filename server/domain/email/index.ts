export { sendMail, closeMailer, mailSetupNotice, type MailMessage, type MailResult } from './mailer';
export { formatMailRange, hostBookedMessage, meetingMovedMessage, moveToReviewMessage, ownerInvitationMessage, proposalToReviewMessage, requesterCancelledMessage, signInLinkMessage, type MeetingSummary } from './messages';
export { contactVerificationMessage, moveOutcomeMessage, proposalOutcomeMessage, reminderMessage, requesterMail, requesterRange } from './requesterMessages';
