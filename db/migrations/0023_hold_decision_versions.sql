-- What a hold's decision was taken on, so a confirm can tell whether it still stands
-- (docs/arbitration.md "Confirm: when the hold's decision stands"). The versions are kept by
-- the database, in the statement that changes their input, so every writer is covered,
-- including ones added later; the service never writes them.
ALTER TABLE "owners" ADD COLUMN "rules_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "owners" ADD COLUMN "mirror_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "meeting_classes" ADD COLUMN "version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "decided_rules_version" integer;--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "decided_class_version" integer;--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "decided_mirror_version" integer;--> statement-breakpoint
-- The owner's rules: one more whenever a rule the arbiter reads changes (time zone, working
-- hours, hard blocks, daily limit); never moved by a writer, and mirror_version never back.
CREATE FUNCTION "owners_decision_versions"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rules_version := OLD.rules_version;
  IF NEW.time_zone IS DISTINCT FROM OLD.time_zone OR NEW.working_hours IS DISTINCT FROM OLD.working_hours
     OR NEW.hard_blocks IS DISTINCT FROM OLD.hard_blocks OR NEW.max_daily_meeting_hours IS DISTINCT FROM OLD.max_daily_meeting_hours THEN
    NEW.rules_version := OLD.rules_version + 1;
  END IF;
  NEW.mirror_version := GREATEST(NEW.mirror_version, OLD.mirror_version);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "owners_decision_versions" BEFORE UPDATE ON "owners" FOR EACH ROW EXECUTE FUNCTION "owners_decision_versions"();--> statement-breakpoint
-- The meeting class: one more on any change of any of its columns (columns added later included).
CREATE FUNCTION "meeting_classes_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version;
  IF NEW IS DISTINCT FROM OLD THEN
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "meeting_classes_version" BEFORE UPDATE ON "meeting_classes" FOR EACH ROW EXECUTE FUNCTION "meeting_classes_version"();--> statement-breakpoint
-- The provider mirror: one more per statement that writes the owner's mirrored events (a
-- sync's delete and insert, a disconnect's delete), once per owner the statement touched.
CREATE FUNCTION "calendar_events_mirror_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "owners" SET "mirror_version" = "mirror_version" + 1 WHERE "id" IN (SELECT "owner_id" FROM "new_events");
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "owners" SET "mirror_version" = "mirror_version" + 1 WHERE "id" IN (SELECT "owner_id" FROM "old_events");
  ELSE
    UPDATE "owners" SET "mirror_version" = "mirror_version" + 1
      WHERE "id" IN (SELECT "owner_id" FROM "old_events" UNION SELECT "owner_id" FROM "new_events");
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "calendar_events_mirror_version_insert" AFTER INSERT ON "calendar_events" REFERENCING NEW TABLE AS "new_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "calendar_events_mirror_version"();--> statement-breakpoint
CREATE TRIGGER "calendar_events_mirror_version_update" AFTER UPDATE ON "calendar_events" REFERENCING OLD TABLE AS "old_events" NEW TABLE AS "new_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "calendar_events_mirror_version"();--> statement-breakpoint
CREATE TRIGGER "calendar_events_mirror_version_delete" AFTER DELETE ON "calendar_events" REFERENCING OLD TABLE AS "old_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "calendar_events_mirror_version"();--> statement-breakpoint
-- Which calendars count: a calendar connected or removed, or its status or "check for
-- conflicts" changed (not its sync bookkeeping: last_synced_at moves on every sync).
CREATE FUNCTION "calendars_mirror_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "owners" SET "mirror_version" = "mirror_version" + 1 WHERE "id" = OLD."owner_id";
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."owner_id" IS DISTINCT FROM OLD."owner_id") THEN
    UPDATE "owners" SET "mirror_version" = "mirror_version" + 1 WHERE "id" = NEW."owner_id";
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "calendars_mirror_version_insert_delete" AFTER INSERT OR DELETE ON "calendars"
  FOR EACH ROW EXECUTE FUNCTION "calendars_mirror_version"();--> statement-breakpoint
CREATE TRIGGER "calendars_mirror_version_update" AFTER UPDATE ON "calendars" FOR EACH ROW
  WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."check_conflicts" IS DISTINCT FROM NEW."check_conflicts"
    OR OLD."owner_id" IS DISTINCT FROM NEW."owner_id" OR OLD."type" IS DISTINCT FROM NEW."type")
  EXECUTE FUNCTION "calendars_mirror_version"();
