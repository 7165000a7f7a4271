-- Date overrides (docs/arbitration.md "Date overrides"): local dates whose working hours replace
-- the weekly ones ([] = a day off), stored with the owner's other schedule rules.
ALTER TABLE "owners" ADD COLUMN "date_overrides" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
-- Out-of-office ranges (docs/arbitration.md "Out of office"): inclusive local dates the owner is away.
ALTER TABLE "owners" ADD COLUMN "out_of_office" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
-- date_overrides and out_of_office are rules the arbiter reads: they join the list that moves rules_version
-- (migrations 0023, 0029; docs/arbitration.md "Confirm: when the hold's decision stands").
CREATE OR REPLACE FUNCTION "owners_decision_versions"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rules_version := OLD.rules_version;
  IF NEW.time_zone IS DISTINCT FROM OLD.time_zone OR NEW.working_hours IS DISTINCT FROM OLD.working_hours
     OR NEW.hard_blocks IS DISTINCT FROM OLD.hard_blocks OR NEW.max_daily_meeting_hours IS DISTINCT FROM OLD.max_daily_meeting_hours
     OR NEW.buffer_external_events IS DISTINCT FROM OLD.buffer_external_events
     OR NEW.date_overrides IS DISTINCT FROM OLD.date_overrides OR NEW.out_of_office IS DISTINCT FROM OLD.out_of_office THEN
    NEW.rules_version := OLD.rules_version + 1;
  END IF;
  NEW.mirror_version := GREATEST(NEW.mirror_version, OLD.mirror_version);
  RETURN NEW;
END $$;
