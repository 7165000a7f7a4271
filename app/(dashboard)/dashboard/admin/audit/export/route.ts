import { TRPCError } from '@trpc/server';
import { auditQueryInput, type AuditSearch } from '@/components/admin/audit-filters';
import { serverTrpc } from '@/server/trpc/caller';

/** Rows one export may hold (a bigger log is exported in date slices). */
const MAX_ROWS = 10_000;
const COLUMNS = ['at', 'action', 'what', 'outcome', 'reason', 'owner_email', 'actor_kind', 'agent_id', 'actor_owner_email', 'actor_requester_email', 'meeting_class', 'start', 'end', 'hold_id', 'booking_id', 'alternatives', 'changes'] as const;

function cell(v: unknown): string {
  const text = v === null || v === undefined ? '' : String(v);
  // Quote every field that needs it; a leading = + - @ would be read as a formula by spreadsheets.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * GET /dashboard/admin/audit/export?...: the audit page's filtered rows as
 * CSV, paged through admin.audit.query (admins only, like the page).
 */
export async function GET(req: Request) {
  const s = Object.fromEntries(new URL(req.url).searchParams) as AuditSearch;
  const trpc = await serverTrpc();
  const lines = [COLUMNS.join(',')];
  let cursor: string | undefined;
  try {
    // The filter's dates are days in the owner's zone, as on the page; the rows' instants stay UTC (ISO 8601).
    const { time_zone: timeZone } = await trpc.schedule.get();
    do {
      const page = await trpc.admin.audit.query(auditQueryInput({ ...s, cursor }, 200, timeZone));
      for (const e of page.entries) {
        const derived = {
          alternatives: (e.alternatives ?? []).map((a) => `${a.start}/${a.end}`).join(' '),
          // The row in words, as the page shows it (server/domain/audit/words.ts); instants stay ISO 8601.
          what: e.words ? `${e.words.title}${e.words.subject ? `: ${e.words.subject}` : ''}` : '',
          changes: [
            ...(e.words?.moved ? [`time: ${e.words.moved.from.start}/${e.words.moved.from.end} -> ${e.words.moved.to.start}/${e.words.moved.to.end}`] : []),
            ...(e.words?.changes ?? []).map((c) => `${c.field}: ${c.before ?? 'none'} -> ${c.after ?? 'none'}`),
          ].join('; '),
        };
        lines.push(COLUMNS.map((c) => cell(c in derived ? derived[c as keyof typeof derived] : e[c as Exclude<typeof c, keyof typeof derived>])).join(','));
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor && lines.length <= MAX_ROWS);
  } catch (err) {
    if (err instanceof TRPCError && (err.code === 'UNAUTHORIZED' || err.code === 'FORBIDDEN')) return new Response(err.message, { status: err.code === 'UNAUTHORIZED' ? 401 : 403 });
    if (err instanceof TRPCError && err.code === 'BAD_REQUEST') return new Response(err.message, { status: 400 });
    throw err;
  }
  return new Response(lines.join('\r\n') + '\r\n', {
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="audit-log.csv"', 'cache-control': 'no-store' },
  });
}
