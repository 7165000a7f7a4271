import { auditLog } from '../schema';
import type { Executor } from '../client';
import { insertStatement } from './columns';
import { queryRows } from './driver';

export type NewAuditRow = typeof auditLog.$inferInsert & { id: string; at: Date };

const INSERT = insertStatement(auditLog);
/** Every decision writes one audit row, on the hot path. */
export const INSERT_AUDIT = INSERT.text;

export async function insertAudit(db: Executor, row: NewAuditRow): Promise<void> {
  await queryRows(db, INSERT.text, INSERT.params(INSERT.fullRow(row)));
}
