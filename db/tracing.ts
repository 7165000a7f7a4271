/**
 * The statement hook of the database layer (docs/operations.md "Traces"). db/ imports nothing
 * of server/, so the tracing itself is handed in: server/observability/tracing.ts installs a
 * StatementTracer when tracing starts, and the drivers (drivers/preparedStatements.ts for
 * postgres.js, drivers/pglite.ts) pass every statement they send through it. With tracing off
 * the hook is null and a statement costs one branch.
 *
 * Next.js bundles route modules apart, so the hook is also kept on globalThis and read when a
 * copy of this module loads (tracing starts before any route module loads: instrumentation.ts).
 */
export type StatementTracer = <T extends PromiseLike<unknown>>(sqlText: string, issue: () => T) => T;

const SHARED = Symbol.for('agent-scheduler.statement-tracer');
const g = globalThis as unknown as { [SHARED]?: StatementTracer | null };

/** The installed hook, or null (tracing off). */
export let statementTracer: StatementTracer | null = g[SHARED] ?? null;

export function setStatementTracer(tracer: StatementTracer | null): void {
  g[SHARED] = tracer;
  statementTracer = tracer;
}
