-- Invariants the database holds (docs/architecture.md, "What the database guarantees").
-- Generated from db/schema, with the UNIQUE (customer_id, id) targets moved before the
-- composite foreign keys that need them, and the deferred foreign keys drizzle cannot
-- declare appended at the end.
ALTER TABLE "calendars" DROP CONSTRAINT "calendars_owner_id_owners_id_fk";
--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "claims" DROP CONSTRAINT "claims_owner_id_owners_id_fk";
--> statement-breakpoint
ALTER TABLE "claims" DROP CONSTRAINT "claims_meeting_class_id_meeting_classes_id_fk";
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "public_links" DROP CONSTRAINT "public_links_owner_id_owners_id_fk";
--> statement-breakpoint
ALTER TABLE "public_meeting_types" DROP CONSTRAINT "public_meeting_types_meeting_class_id_meeting_classes_id_fk";
--> statement-breakpoint
ALTER TABLE "booking_proposals" DROP CONSTRAINT "booking_proposals_owner_id_owners_id_fk";
--> statement-breakpoint
ALTER TABLE "owners" ADD CONSTRAINT "owners_customer_id_key" UNIQUE("customer_id","id");--> statement-breakpoint
ALTER TABLE "meeting_classes" ADD CONSTRAINT "meeting_classes_customer_id_key" UNIQUE("customer_id","id");--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_customer_id_key" UNIQUE("customer_id","id");--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_owner_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_owner_email" text;--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_owner_fk" FOREIGN KEY ("customer_id","owner_id") REFERENCES "public"."owners"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_agent_fk" FOREIGN KEY ("customer_id","agent_id") REFERENCES "public"."agents"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_owner_fk" FOREIGN KEY ("customer_id","owner_id") REFERENCES "public"."owners"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_meeting_class_fk" FOREIGN KEY ("customer_id","meeting_class_id") REFERENCES "public"."meeting_classes"("customer_id","id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_agent_fk" FOREIGN KEY ("customer_id","agent_id") REFERENCES "public"."agents"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_links" ADD CONSTRAINT "public_links_owner_fk" FOREIGN KEY ("customer_id","owner_id") REFERENCES "public"."owners"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_meeting_class_fk" FOREIGN KEY ("customer_id","meeting_class_id") REFERENCES "public"."meeting_classes"("customer_id","id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_owner_fk" FOREIGN KEY ("customer_id","owner_id") REFERENCES "public"."owners"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_meeting_class_fk" FOREIGN KEY ("customer_id","meeting_class_id") REFERENCES "public"."meeting_classes"("customer_id","id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owners" ADD CONSTRAINT "owners_role_check" CHECK ("owners"."role" in ('admin', 'member'));--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_status_check" CHECK ("calendars"."status" in ('active', 'disconnected', 'reauth_required'));--> statement-breakpoint
ALTER TABLE "meeting_classes" ADD CONSTRAINT "meeting_classes_preempt_policy_check" CHECK ("meeting_classes"."preempt_policy" in ('preempt_lower', 'never'));--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_permissions_check" CHECK ("agents"."permissions" <@ array['read_availability', 'create_holds', 'create_bookings', 'preempt', 'create_proposals', 'manage_agents', 'manage_customer', 'manage_public_scheduling', 'read_audit']::text[]);--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_owner_scope_check" CHECK ("agents"."owner_scope" = 'org:*' or "agents"."owner_scope" like 'user:%@%');--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_kind_check" CHECK ("claims"."kind" in ('hold', 'booking'));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_status_check" CHECK ("claims"."status" in ('active', 'promoted', 'expired', 'released', 'confirmed', 'cancelled', 'preempted'));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_hold_scope_check" CHECK ("claims"."hold_scope" in ('candidate', 'window'));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_source_check" CHECK ("claims"."source" in ('agent', 'public', 'provider'));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_kind_status" CHECK (("claims"."kind" = 'hold' and "claims"."status" in ('active', 'promoted', 'expired', 'released', 'preempted')) or ("claims"."kind" = 'booking' and "claims"."status" in ('confirmed', 'cancelled', 'preempted')));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_hold_fields" CHECK (case when "claims"."kind" = 'hold' then "claims"."hold_scope" is not null and "claims"."expires_at" is not null
        else "claims"."hold_scope" is null and "claims"."duration_minutes" is null and "claims"."expires_at" is null and "claims"."promoted_booking_id" is null end);--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_booking_fields" CHECK ("claims"."kind" = 'booking' or ("claims"."hold_id" is null and "claims"."proposal_id" is null));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_promoted_booking" CHECK (("claims"."status" = 'promoted') = ("claims"."promoted_booking_id" is not null));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_preempted_by" CHECK ("claims"."preempted_by_claim_id" is null or "claims"."status" = 'preempted');--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_duration_positive" CHECK ("claims"."duration_minutes" is null or "claims"."duration_minutes" > 0);--> statement-breakpoint
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_state_check" CHECK ("idempotency_records"."state" in ('in_flight', 'done'));--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_outcome_check" CHECK ("audit_log"."outcome" in ('accept', 'reject', 'counter_propose'));--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_owner" CHECK (("audit_log"."actor_owner_id" is null) = ("audit_log"."actor_owner_email" is null));--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'proposal.reviewed'));--> statement-breakpoint
ALTER TABLE "verified_domains" ADD CONSTRAINT "verified_domains_status_check" CHECK ("verified_domains"."status" in ('pending', 'verified'));--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_public_preempt_policy_check" CHECK ("public_meeting_types"."public_preempt_policy" in ('inherit', 'never', 'preempt_lower'));--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_visibility_check" CHECK ("public_meeting_types"."visibility" in ('public', 'unlisted', 'audience'));--> statement-breakpoint
ALTER TABLE "allocations" ADD CONSTRAINT "allocations_period_check" CHECK ("allocations"."period" in ('day', 'week', 'month'));--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_origin_check" CHECK ("booking_proposals"."origin" in ('public', 'agent'));--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_status_check" CHECK ("booking_proposals"."status" in ('pending_requester_verification', 'pending_review', 'booked', 'declined', 'withdrawn', 'expired'));--> statement-breakpoint
ALTER TABLE "contact_verifications" ADD CONSTRAINT "contact_verifications_status_check" CHECK ("contact_verifications"."status" in ('pending', 'confirmed', 'expired'));--> statement-breakpoint
-- Columns that point at other claims or at proposals. DEFERRABLE INITIALLY DEFERRED:
-- checked at commit, since a decision marks a claim preempted by (or a hold promoted
-- to) a claim it inserts later in the same transaction.
ALTER TABLE "claims" ADD CONSTRAINT "claims_hold_fk" FOREIGN KEY ("hold_id") REFERENCES "public"."claims"("id") ON DELETE set null DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_promoted_booking_fk" FOREIGN KEY ("promoted_booking_id") REFERENCES "public"."claims"("id") DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_preempted_by_fk" FOREIGN KEY ("preempted_by_claim_id") REFERENCES "public"."claims"("id") ON DELETE set null DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_proposal_fk" FOREIGN KEY ("proposal_id") REFERENCES "public"."booking_proposals"("id") ON DELETE set null DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_booking_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."claims"("id") ON DELETE set null DEFERRABLE INITIALLY DEFERRED;
