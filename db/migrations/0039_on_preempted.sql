-- A bumped meeting rebooked (docs/arbitration.md "Bumped meetings rebooked"): a meeting class may
-- ask that a booking of it, when a higher-priority claim preempts it, get a hold for its agent on
-- the nearest slot its own rules accept, placed in the preempting claim's transaction. Null:
-- nothing is held (as before).
ALTER TABLE "meeting_classes" ADD COLUMN "on_preempted" text;
--> statement-breakpoint
ALTER TABLE "meeting_classes" ADD CONSTRAINT "meeting_classes_on_preempted_check" CHECK ("meeting_classes"."on_preempted" in ('hold_nearest'));
