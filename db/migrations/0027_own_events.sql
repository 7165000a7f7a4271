-- Events for an agent's own changes (docs/webhooks.md "Own events"): a webhook endpoint may ask
-- for them (include_own), and the notification feed keeps them, marked own, already delivered,
-- so the pending queue (drained into every answer) never carries them; GET /v1/notifications
-- with since and include_own=true reads them.
ALTER TABLE "webhook_endpoints" ADD COLUMN "include_own" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "own" boolean DEFAULT false NOT NULL;
