-- Every audit row names its actor (docs/reliability.md, "Audit actors").
ALTER TABLE "audit_log" ADD COLUMN "actor_kind" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_requester_email" text;--> statement-breakpoint
-- An approval is always made in the dashboard by the proposal's owner (the reviewer sees only their own proposals): the
-- rows written before recorded the proposal's agent as actor; they name the owner, and keep the agent in details.
UPDATE "audit_log" SET
  "actor_owner_id" = "owner_id",
  "actor_owner_email" = "owner_email",
  "details" = CASE WHEN "agent_id" IS NULL THEN "details" ELSE coalesce("details", '{}'::jsonb) || jsonb_build_object('proposal_agent_id', "agent_id") END,
  "agent_id" = NULL
WHERE "action" = 'proposal.review' AND "actor_owner_id" IS NULL AND "owner_id" IS NOT NULL AND "owner_email" IS NOT NULL;--> statement-breakpoint
UPDATE "audit_log" SET "agent_id" = NULL WHERE "actor_owner_id" IS NOT NULL AND "agent_id" IS NOT NULL;--> statement-breakpoint
-- Rows with neither an agent nor an owner were written by customer set-up or a dashboard change that passed no actor: the system.
UPDATE "audit_log" SET "actor_kind" = CASE WHEN "agent_id" IS NOT NULL THEN 'agent' WHEN "actor_owner_id" IS NOT NULL THEN 'owner' ELSE 'system' END;--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "actor_kind" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_kind_check" CHECK ("audit_log"."actor_kind" in ('agent', 'owner', 'requester', 'system'));--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_identity" CHECK (("audit_log"."agent_id" is not null) = ("audit_log"."actor_kind" = 'agent') and ("audit_log"."actor_owner_id" is not null) = ("audit_log"."actor_kind" = 'owner') and ("audit_log"."actor_requester_email" is not null) = ("audit_log"."actor_kind" = 'requester'));
