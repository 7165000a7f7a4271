ALTER TABLE "notifications" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "notifications_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
CREATE INDEX "notifications_agent_seq_idx" ON "notifications" USING btree ("agent_id","seq");--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_outcome_check";--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_outcome_check" CHECK ("audit_log"."outcome" in ('accept', 'reject', 'counter_propose', 'denied'));
