-- Wake the webhook delivery workers on commit (docs/webhooks.md "Delivery"): every new outbox
-- row, and an endpoint turned active again (its pending rows resume), is announced on the
-- channel "webhook_outbox" with the endpoint's id as the payload. NOTIFY is delivered when the
-- writing transaction commits (never on rollback), and PostgreSQL folds repeats within one
-- transaction. A row trigger: an event with no subscribed endpoint inserts nothing and announces
-- nothing. Every writer is covered (the service, a script, a hand-written INSERT); the embedded
-- PGlite delivers the notification in-process, the same way.
CREATE FUNCTION "webhook_outbox_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'webhook_deliveries' THEN
    PERFORM pg_notify('webhook_outbox', NEW.endpoint_id::text);
  ELSE
    PERFORM pg_notify('webhook_outbox', NEW.id::text);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_queued" AFTER INSERT ON "webhook_deliveries" FOR EACH ROW EXECUTE FUNCTION "webhook_outbox_changed"();--> statement-breakpoint
CREATE TRIGGER "webhook_endpoints_resumed" AFTER UPDATE OF "status" ON "webhook_endpoints" FOR EACH ROW
  WHEN (NEW.status = 'active' AND OLD.status IS DISTINCT FROM 'active')
  EXECUTE FUNCTION "webhook_outbox_changed"();
