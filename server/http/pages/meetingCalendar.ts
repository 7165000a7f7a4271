import { getDb } from '@/server/db';
import { isDomainError } from '@/server/domain/errors';
import { bookedMeetingIcs, proposalIdForToken } from '@/server/domain/publicScheduling/requester';
import { log } from '@/server/log';
import { tokenPageLimits } from './tokenLimits';
import { rateLimitKeys } from '@/server/rateLimit/keys';

/**
 * GET /public/booking-proposals/{token}/calendar.ics: the booked meeting as an
 * iCalendar file for the status page's "Add to calendar" (bookedMeetingIcs).
 * Same limits as the status (per address, then per proposal); 404 when the
 * token names no confirmed booking. The token is in the URL: no caching.
 */
export async function meetingCalendarFile(req: Request, ctx: { params: Promise<Record<string, string | string[] | undefined>> }): Promise<Response> {
  const token = String((await ctx.params).token ?? '');
  const text = (status: number, body: string, headers: Record<string, string> = {}) =>
    new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });
  try {
    const db = await getDb();
    const { limit, headers } = await tokenPageLimits(req, token, async (t) => {
      const id = await proposalIdForToken(db, t);
      return id && rateLimitKeys.proposal(id);
    });
    if (!limit.success) return text(429, 'Too many requests; please try again in a minute.', headers);
    if (token.length > 128) return text(404, 'Not found', headers);
    const file = await bookedMeetingIcs(db, token, new Date());
    return new Response(file.content, {
      status: 200,
      headers: {
        ...headers,
        'content-type': 'text/calendar; charset=utf-8',
        'content-disposition': `attachment; filename="${file.filename}"`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
      },
    });
  } catch (err) {
    if (isDomainError(err) && err.code === 'not_found') return text(404, 'Not found');
    log.error('meeting calendar file failed', { err });
    return text(500, 'Something went wrong; please try again later.');
  }
}
