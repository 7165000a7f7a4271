ALTER TABLE "claims" ADD COLUMN "coverage" text;--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "part_of_hold_id" uuid;--> statement-breakpoint
CREATE INDEX "claims_part_of_hold_idx" ON "claims" USING btree ("part_of_hold_id") WHERE "claims"."part_of_hold_id" is not null;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_coverage_check" CHECK ("claims"."coverage" in ('first_fit', 'all_free'));--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_coverage_fields" CHECK (("claims"."coverage" is null or "claims"."hold_scope" = 'window') and ("claims"."part_of_hold_id" is null or "claims"."coverage" = 'all_free'));