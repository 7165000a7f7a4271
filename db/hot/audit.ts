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

const MULTI = new Map<number, string>();
/** `insert into audit_log ... values (...), (...)` for `n` rows (texts cached per count). */
function multiInsert(n: number): string {
  let text = MULTI.get(n);
  if (!text) {
    const [head, tuple] = INSERT.text.split(' values ');
    const width = (tuple.match(/\$\d+/g) ?? []).length;
    const tuples = Array.from({ length: n }, (_, r) => `(${Array.from({ length: width }, (_, i) => `$${r * width + i + 1}`).join(', ')})`);
    text = `${head} values ${tuples.join(', ')}`;
    MULTI.set(n, text);
  }
  return text;
}

/** Several audit rows in one statement (one round trip). */
export async function insertAuditRows(db: Executor, rows: NewAuditRow[]): Promise<void> {
  if (rows.length === 1) return insertAudit(db, rows[0]);
  await queryRows(db, multiInsert(rows.length), rows.flatMap((row) => INSERT.params(INSERT.fullRow(row))));
}
