-- Pools: named sets of owners with weights, and who each pool claim went to and why (docs/groups.md, "Pools").
CREATE TABLE "pools" (
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "pools" ADD CONSTRAINT "pools_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pools_customer_name_key" ON "pools" USING btree ("customer_id","name");--> statement-breakpoint
CREATE TABLE "pool_members" (
	"pool_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"weight" integer NOT NULL,
	CONSTRAINT "pool_members_pkey" PRIMARY KEY("pool_id","owner_id"),
	CONSTRAINT "pool_members_weight_check" CHECK ("pool_members"."weight" between 1 and 100)
);--> statement-breakpoint
ALTER TABLE "pool_members" ADD CONSTRAINT "pool_members_pool_id_pools_id_fk" FOREIGN KEY ("pool_id") REFERENCES "public"."pools"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pool_members" ADD CONSTRAINT "pool_members_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pool_members_owner_idx" ON "pool_members" USING btree ("owner_id");--> statement-breakpoint
CREATE TABLE "pool_assignments" (
	"claim_id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"pool_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"load_minutes" integer NOT NULL,
	"weight" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pool_assignments_reason_check" CHECK ("pool_assignments"."reason" in ('lowest_weighted_load', 'least_recently_booked', 'owner_order', 'only_candidate', 'requested'))
);--> statement-breakpoint
ALTER TABLE "pool_assignments" ADD CONSTRAINT "pool_assignments_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pool_assignments" ADD CONSTRAINT "pool_assignments_pool_id_pools_id_fk" FOREIGN KEY ("pool_id") REFERENCES "public"."pools"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pool_assignments" ADD CONSTRAINT "pool_assignments_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written in the claim's pipeline, before or after the claim row: checked at commit.
ALTER TABLE "pool_assignments" ADD CONSTRAINT "pool_assignments_claim_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."claims"("id") ON DELETE cascade DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
CREATE INDEX "pool_assignments_pool_at_idx" ON "pool_assignments" USING btree ("pool_id","created_at");
