-- One owner's due holds (expired inside its claim transaction) found among that owner's
-- active holds only, never its history: the sweeper's expires_at index spans every owner,
-- and claims_owner_start_idx would walk all of the owner's claims (docs/operations.md).
CREATE INDEX "claims_owner_active_hold_expiry_idx" ON "claims" USING btree ("owner_id","expires_at") WHERE "claims"."kind" = 'hold' and "claims"."status" = 'active';
