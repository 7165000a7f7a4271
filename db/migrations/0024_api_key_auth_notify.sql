-- Every change that can turn a verified API key away, announced on the channel "api_key_auth"
-- (docs/architecture.md "API keys"): each instance keeps the keys it verified in memory and
-- drops them when told. Announced by the database, in the statement that makes the change, so
-- every writer is covered: the service, a script, a hand-written UPDATE, the cascade of a
-- customer's deletion. Payloads: "k:<key id>", "a:<agent id>", "*" (forget every key).
-- A key's last_used_at (written once a minute per key) announces nothing.
CREATE FUNCTION "api_key_auth_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('api_key_auth', '*');
  ELSIF TG_TABLE_NAME = 'api_keys' THEN
    PERFORM pg_notify('api_key_auth', 'k:' || OLD.id::text);
  ELSE
    PERFORM pg_notify('api_key_auth', 'a:' || OLD.id::text);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "api_keys_auth_changed" AFTER UPDATE ON "api_keys" FOR EACH ROW
  WHEN ((OLD.revoked_at, OLD.key_hash, OLD.agent_id, OLD.customer_id) IS DISTINCT FROM (NEW.revoked_at, NEW.key_hash, NEW.agent_id, NEW.customer_id))
  EXECUTE FUNCTION "api_key_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "api_keys_auth_deleted" AFTER DELETE ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "api_key_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "api_keys_auth_truncated" AFTER TRUNCATE ON "api_keys" FOR EACH STATEMENT EXECUTE FUNCTION "api_key_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "agents_auth_changed" AFTER UPDATE ON "agents" FOR EACH ROW
  WHEN ((OLD.disabled, OLD.owner_scope, OLD.permissions, OLD.customer_id) IS DISTINCT FROM (NEW.disabled, NEW.owner_scope, NEW.permissions, NEW.customer_id))
  EXECUTE FUNCTION "api_key_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "agents_auth_deleted" AFTER DELETE ON "agents" FOR EACH ROW EXECUTE FUNCTION "api_key_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "agents_auth_truncated" AFTER TRUNCATE ON "agents" FOR EACH STATEMENT EXECUTE FUNCTION "api_key_auth_changed"();
