-- Buffers (docs/arbitration.md "Buffers"): minutes a meeting keeps free before and after
-- itself. A meeting class and a public meeting type name them; a claim keeps the ones it was
-- decided with. An owner may ask for buffers to keep clear of provider-calendar busy time too.
ALTER TABLE "meeting_classes" ADD COLUMN "buffer_before_minutes" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "meeting_classes" ADD COLUMN "buffer_after_minutes" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "meeting_classes" ADD CONSTRAINT "meeting_classes_buffers_check" CHECK ("meeting_classes"."buffer_before_minutes" between 0 and 240 and "meeting_classes"."buffer_after_minutes" between 0 and 240);
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "buffer_before_minutes" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "buffer_after_minutes" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_buffers_check" CHECK ("public_meeting_types"."buffer_before_minutes" between 0 and 240 and "public_meeting_types"."buffer_after_minutes" between 0 and 240);
--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "buffer_before_minutes" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "buffer_after_minutes" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_buffers_check" CHECK ("claims"."buffer_before_minutes" between 0 and 240 and "claims"."buffer_after_minutes" between 0 and 240);
--> statement-breakpoint
ALTER TABLE "owners" ADD COLUMN "buffer_external_events" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- buffer_external_events is a rule the arbiter reads: it joins the list that moves rules_version
-- (migration 0023; docs/arbitration.md "Confirm: when the hold's decision stands").
CREATE OR REPLACE FUNCTION "owners_decision_versions"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rules_version := OLD.rules_version;
  IF NEW.time_zone IS DISTINCT FROM OLD.time_zone OR NEW.working_hours IS DISTINCT FROM OLD.working_hours
     OR NEW.hard_blocks IS DISTINCT FROM OLD.hard_blocks OR NEW.max_daily_meeting_hours IS DISTINCT FROM OLD.max_daily_meeting_hours
     OR NEW.buffer_external_events IS DISTINCT FROM OLD.buffer_external_events THEN
    NEW.rules_version := OLD.rules_version + 1;
  END IF;
  NEW.mirror_version := GREATEST(NEW.mirror_version, OLD.mirror_version);
  RETURN NEW;
END $$;
