import { pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, idColumn } from './columns';

/** A customer (organisation) owns everything else; nothing is visible across customers. */
export const customers = pgTable('customers', {
  id: idColumn(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});
