-- Two ACTIVE claims (unexpired holds and confirmed bookings) of one owner never
-- overlap. Drizzle cannot declare EXCLUDE, so it lives here. The GiST index
-- behind it also answers "claims of this owner in this range" look-ups.
CREATE EXTENSION IF NOT EXISTS btree_gist;
--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_no_overlap"
  EXCLUDE USING gist ("owner_id" WITH =, tstzrange("start_at", "end_at", '[)') WITH &&)
  WHERE ("status" IN ('active', 'confirmed'));
--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_valid_interval" CHECK ("end_at" > "start_at");
