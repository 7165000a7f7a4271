import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { instant } from './columns';

/**
 * One-time sign-in links for the dashboard (Auth.js email provider). The
 * identifier is the owner's email; the token is stored hashed (Auth.js
 * hashes it with the auth secret); a row is deleted when used, so a link
 * works once, and Auth.js refuses it after `expires`.
 */
export const verificationTokens = pgTable(
  'verification_tokens',
  {
    identifier: text('identifier').notNull(),
    token: text('token').notNull(),
    expires: instant('expires').notNull(),
  },
  (t) => [primaryKey({ columns: [t.identifier, t.token] })],
);
