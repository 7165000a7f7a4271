-- The caller's time zone (docs/api.md "The caller's time zone"): the zone an agent's answers add
-- start_caller/end_caller in when a call names no time_zone; a key's overrides its agent's.
ALTER TABLE "agents" ADD COLUMN "display_time_zone" text;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "display_time_zone" text;
--> statement-breakpoint
-- A verified key remembers its display zone (migration 0024): a change of either is announced too.
DROP TRIGGER "api_keys_auth_changed" ON "api_keys";
--> statement-breakpoint
CREATE TRIGGER "api_keys_auth_changed" AFTER UPDATE ON "api_keys" FOR EACH ROW
  WHEN ((OLD.revoked_at, OLD.key_hash, OLD.agent_id, OLD.customer_id, OLD.display_time_zone) IS DISTINCT FROM (NEW.revoked_at, NEW.key_hash, NEW.agent_id, NEW.customer_id, NEW.display_time_zone))
  EXECUTE FUNCTION "api_key_auth_changed"();
--> statement-breakpoint
DROP TRIGGER "agents_auth_changed" ON "agents";
--> statement-breakpoint
CREATE TRIGGER "agents_auth_changed" AFTER UPDATE ON "agents" FOR EACH ROW
  WHEN ((OLD.disabled, OLD.owner_scope, OLD.permissions, OLD.customer_id, OLD.display_time_zone) IS DISTINCT FROM (NEW.disabled, NEW.owner_scope, NEW.permissions, NEW.customer_id, NEW.display_time_zone))
  EXECUTE FUNCTION "api_key_auth_changed"();
