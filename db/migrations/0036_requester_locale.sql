-- The language a requester used on the booking pages (docs/public-scheduling.md "Languages"): a
-- supported tag (en, de, fr, es, pt-BR, it, nl, ja, zh-CN, ar) when the request came through the
-- pages, null through the JSON API. The owner's mail about the request names it.
ALTER TABLE "booking_proposals" ADD COLUMN "requester_locale" text;
