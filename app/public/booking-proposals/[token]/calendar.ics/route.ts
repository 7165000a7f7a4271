import { meetingCalendarFile } from '@/server/http/pages/meetingCalendar';
import { traceRequest } from '@/server/observability/tracing';

// The booked meeting's "Add to calendar" file (docs/public-scheduling.md "Status page"); a download, not a JSON operation.
export const GET = (req: Request, ctx: Parameters<typeof meetingCalendarFile>[1]) =>
  traceRequest(req, 'GET /public/booking-proposals/{token}/calendar.ics', '/public/booking-proposals/{token}/calendar.ics', () => meetingCalendarFile(req, ctx));
