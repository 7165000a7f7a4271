import { meetingCalendarFile } from '@/server/http/pages/meetingCalendar';

// The booked meeting's "Add to calendar" file (docs/public-scheduling.md "Status page"); a download, not a JSON operation.
export const GET = meetingCalendarFile;
