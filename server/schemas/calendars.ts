import { z } from 'zod';
import { Email } from './common';

export const CalendarsQuery = z.strictObject({ owner_email: Email });

export const Calendar = z.object({
  calendar_id: z.uuid(),
  type: z.string().describe('internal, caldav, ...'),
  display_name: z.string().nullable(),
  is_primary: z.boolean(),
  status: z.enum(['active', 'disconnected', 'reauth_required']),
  check_conflicts: z.boolean().describe("This calendar's events count as busy time"),
  last_synced_at: z.iso.datetime().nullable().describe('Last successful sync (provider calendars); the mirror is as fresh as this'),
  last_sync_error: z.string().nullable(),
});

export const CalendarList = z.object({ calendars: z.array(Calendar) });

export const CaldavConnectBody = z.strictObject({
  owner_email: Email,
  server_url: z.url().max(2000),
  username: z.string().min(1).max(320),
  password: z.string().min(1).max(1000).describe('Password or app password; stored encrypted (AES-256-GCM), never returned'),
  calendar_url: z.url().max(2000).optional().describe('The collection to use; default: the account\'s first calendar'),
  make_primary: z.boolean().optional(),
  check_conflicts: z.boolean().optional(),
});

export const CalendarPatchBody = z
  .strictObject({
    owner_email: Email,
    make_primary: z.literal(true).optional().describe('Make this the primary calendar (the previous primary stops being primary)'),
    check_conflicts: z.boolean().optional(),
  })
  .refine((b) => b.make_primary !== undefined || b.check_conflicts !== undefined, { message: 'Give make_primary or check_conflicts' });
