-- What the last invitation mail of a booking said (docs/calendars.md "Invitations"): its
-- attendees, times and details, so the next update tells each person what changed for them
-- (people added are invited, people kept hear of a change that concerns them, a move's reason
-- goes with that move only). NULL on rows sent before this column: everyone gets the update.
ALTER TABLE "booking_invitations" ADD COLUMN "sent" jsonb;
