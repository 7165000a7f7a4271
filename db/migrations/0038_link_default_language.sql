-- A link owner's default language for the link's requester pages (docs/public-scheduling.md
-- "Languages"): one of the supported tags, used when neither ?lang=, the switcher's cookie nor the
-- browser's Accept-Language names a supported language; null: English, as before.
ALTER TABLE "public_links" ADD COLUMN "default_language" text;
--> statement-breakpoint
ALTER TABLE "public_links" ADD CONSTRAINT "public_links_default_language_check" CHECK ("default_language" IN ('en', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'ja', 'zh-CN', 'ar'));
