import { z } from 'zod';
import {
  calendarView,
  connectCaldav,
  disconnectCalendar,
  discoverCaldav,
  listCalendars,
  reconnectCaldav,
  updateCalendar,
} from '@/server/domain/calendars/calendarService';
import { finishOAuthConnect, OAUTH_PROVIDERS, oauthProvidersConfigured, startOAuthConnect } from '@/server/domain/calendars/oauthFlow';
import { CaldavAccountInput, CaldavDashboardConnectInput, CaldavReconnectInput, CalendarSettingsInput } from '@/server/schemas/calendars';
import { ownerProcedure, router } from '../init';

const Provider = z.enum(OAUTH_PROVIDERS);

/**
 * The signed-in owner's connected calendars (docs/dashboard.md "Calendars"):
 * list with status and last sync, connect CalDAV (discover, then pick),
 * the OAuth flow's two ends for Google and Microsoft 365 (called by the
 * route handlers under /dashboard/connections, which keep the flow cookie),
 * primary and "check for conflicts", reconnect and disconnect.
 */
export const calendarsRouter = router({
  list: ownerProcedure.query(async ({ ctx }) => ({
    calendars: (await listCalendars(ctx.db, ctx.owner.customerId, ctx.owner.email)).map(calendarView),
    providers: oauthProvidersConfigured(),
  })),

  discoverCaldav: ownerProcedure.input(CaldavAccountInput).mutation(async ({ input }) => ({
    calendars: (await discoverCaldav({ serverUrl: input.server_url, username: input.username, password: input.password })).map((c) => ({ url: c.url, display_name: c.displayName })),
  })),

  connectCaldav: ownerProcedure.input(CaldavDashboardConnectInput).mutation(async ({ ctx, input }) => {
    const connected = [];
    for (const [i, url] of input.calendar_urls.entries()) {
      const { calendar, sync } = await connectCaldav(
        ctx.db,
        ctx.owner.customerId,
        ctx.owner.email,
        { serverUrl: input.server_url, username: input.username, password: input.password, calendarUrl: url, makePrimary: i === 0 && input.make_primary, checkConflicts: input.check_conflicts },
        ctx.now(),
      );
      connected.push({ ...calendarView(calendar), sync: sync.outcome });
    }
    return { calendars: connected };
  }),

  reconnectCaldav: ownerProcedure.input(CaldavReconnectInput).mutation(async ({ ctx, input }) => {
    const { calendar, sync } = await reconnectCaldav(ctx.db, ctx.owner.customerId, ctx.owner.email, input.calendar_id, input.password, ctx.now());
    return { ...calendarView(calendar), sync: sync.outcome };
  }),

  update: ownerProcedure
    .input(CalendarSettingsInput)
    .mutation(async ({ ctx, input }) =>
      calendarView(await updateCalendar(ctx.db, ctx.owner.customerId, ctx.owner.email, input.calendar_id, { makePrimary: input.make_primary, checkConflicts: input.check_conflicts }, ctx.now())),
    ),

  disconnect: ownerProcedure
    .input(z.strictObject({ calendar_id: z.string().min(1).max(64) }))
    .mutation(async ({ ctx, input }) => calendarView(await disconnectCalendar(ctx.db, ctx.owner.customerId, ctx.owner.email, input.calendar_id, ctx.now()))),

  /** Where to send the browser, and the sealed flow value for the HTTP-only cookie. */
  oauthStart: ownerProcedure
    .input(z.strictObject({ provider: Provider, redirect_uri: z.url().max(2000) }))
    .mutation(({ ctx, input }) => {
      const { authorizationUrl, flow } = startOAuthConnect(ctx.owner.ownerId, input.provider, input.redirect_uri, ctx.now());
      return { authorization_url: authorizationUrl, flow };
    }),

  /** The provider's redirect back: state checked against the flow cookie, code exchanged (PKCE), calendar stored and synced. */
  oauthFinish: ownerProcedure
    .input(
      z.strictObject({
        provider: Provider,
        flow: z.string().max(4000).optional(),
        code: z.string().max(4000).nullish(),
        state: z.string().max(1000).nullish(),
        error: z.string().max(200).nullish(),
        error_description: z.string().max(2000).nullish(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { calendar, sync } = await finishOAuthConnect(
        ctx.db,
        ctx.owner,
        input.provider,
        { code: input.code, state: input.state, error: input.error, errorDescription: input.error_description, flow: input.flow },
        ctx.now(),
      );
      return { ...calendarView(calendar), sync: sync.outcome };
    }),
});
