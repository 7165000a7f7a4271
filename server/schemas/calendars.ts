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
}).meta({ id: 'Calendar' });

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

/** The dashboard's CalDAV connect form, step 1: the account (its calendars are listed to pick from). */
export const CaldavAccountInput = z.strictObject({
  server_url: z.url({ message: 'Enter the server address, e.g. https://caldav.example.com/' }).max(2000),
  username: z.string().trim().min(1, 'Enter the user name').max(320),
  password: z.string().min(1, 'Enter the password or app password').max(1000),
});

/** Step 2: the calendar(s) chosen from the account. */
export const CaldavDashboardConnectInput = CaldavAccountInput.extend({
  calendar_urls: z.array(z.url().max(2000)).min(1, 'Choose at least one calendar').max(20),
  make_primary: z.boolean().optional(),
  check_conflicts: z.boolean().optional(),
});

export const CaldavReconnectInput = z.strictObject({
  calendar_id: z.string().min(1).max(64),
  password: z.string().min(1, 'Enter the new password or app password').max(1000),
});

export const CalendarSettingsInput = z
  .strictObject({ calendar_id: z.string().min(1).max(64), make_primary: z.literal(true).optional(), check_conflicts: z.boolean().optional() })
  .refine((b) => b.make_primary !== undefined || b.check_conflicts !== undefined, { message: 'Give make_primary or check_conflicts' });
