import { z } from 'zod';
import { getConfig } from '@/server/config';
import { DomainError, isDomainError } from '@/server/domain/errors';
import {
  linkAwayState,
  linkIdFor,
  loadPublicLink,
  loadPublicType,
  meetingTypePage,
  type PublicMeetingTypePage,
  proposalIdForToken,
  proposalStatusPage,
  publicSchedule,
  resolveRequester,
  submitProposal,
  suggestedTimes,
  freeDays,
  withdrawProposal,
  cancelBookedMeeting,
  moveSuggestions,
  requestMove,
} from '@/server/domain/publicScheduling/requester';
import { getRateLimiter, RATE_LIMITS, type RateLimitPolicy } from '@/server/rateLimit';
import { clientIpOf, publicBaseUrl } from '@/server/request';
import * as S from '@/server/schemas/public';
import { UtcDateTime } from '@/server/schemas/common';
import { publicProcedure, router, type TrpcContext } from '../init';
import { clearCredentialCookie, credentialCookie, credentialFromCookies } from './requesterCookie';
import { rateLimitKeys } from '@/server/rateLimit/keys';
import { requestLocale } from '@/i18n/server';
import { entryIdForToken, joinPublicWaitlist, publicWaitlistPage } from '@/server/domain/waitlist/requesterEntries';
import { confirmWaitlistOffer, leaveWaitlistByToken } from '@/server/domain/waitlist/requesterOffer';

/**
 * The public booking pages' procedures (docs/public-scheduling.md "Booking
 * pages"): the same domain calls as the /public REST operations, for anyone
 * (no session), under the same rate limits and keys, so a page and an API
 * client share one budget. A requester credential travels in an HttpOnly
 * cookie the page sets (`useCredential`), never in a URL. A saved credential
 * that no longer works is reported (`credential_rejected`) and the call is
 * answered as for an anonymous requester, so a stale cookie cannot lock a
 * requester out of public types.
 */
const Link = S.ScheduleParams.shape.id;
const Slug = S.MeetingTypeParams.shape.slug;
const Token = S.TokenParams.shape.token;

function ipOf(ctx: TrpcContext): string {
  return clientIpOf(ctx.req, getConfig().trustProxy);
}

/** One rate-limit check; a denial is the REST API's `rate_limited` (429). */
async function limit(policy: RateLimitPolicy, identifier: string): Promise<void> {
  const r = await getRateLimiter().limit(policy, identifier);
  if (!r.success) throw new DomainError('rate_limited', 'Too many requests; please try again in a minute');
}

/** Per client address, as the REST API's global limit. */
const perIp = publicProcedure.use(async ({ ctx, next }) => {
  await limit(RATE_LIMITS.global, rateLimitKeys.ip(ipOf(ctx)));
  return next();
});
/**
 * Per proposal, on top of the per-address limit (perIp before it): the same key as GET
 * /public/booking-proposals/{token} and its withdraw. Only a token that
 * names a proposal gets a budget of its own, so made-up tokens add no keys.
 */
async function perProposal<R>({ ctx, input, next }: { ctx: TrpcContext; input: { token: string }; next: () => Promise<R> }): Promise<R> {
  const id = await proposalIdForToken(ctx.db, input.token);
  if (id) await limit(RATE_LIMITS.publicProposalToken, rateLimitKeys.proposal(id));
  return next();
}
const perToken = perIp.input(z.strictObject({ token: Token })).use(perProposal);

/** A waitlist entry's page and its actions: the per-proposal budget, keyed by the entry (made-up tokens add no keys). */
const perEntry = perIp.input(z.strictObject({ token: Token })).use(async ({ ctx, input, next }) => {
  const id = await entryIdForToken(ctx.db, input.token);
  if (id) await limit(RATE_LIMITS.publicProposalToken, rateLimitKeys.proposal(id));
  return next();
});

/** The booking page shows times on the requester's own clock: it takes the instants only. */
const instants = (r: { suggested_times: { start: string; end: string }[] }) => r.suggested_times.map(({ start, end }) => ({ start, end }));

/** Run `fn` with the saved credential; if it is rejected (not_found) but works anonymously, say so. */
async function withCredential<T>(ctx: TrpcContext, fn: (bearer: string | null) => Promise<T>): Promise<T & { credential_rejected: boolean }> {
  const bearer = credentialFromCookies(ctx.headers);
  try {
    return { ...(await fn(bearer)), credential_rejected: false };
  } catch (err) {
    if (bearer === null || !isDomainError(err) || err.code !== 'not_found') throw err;
    return { ...(await fn(null)), credential_rejected: true };
  }
}

export const requesterRouter = router({
  /** A link's page: its title, the owner's name, the meeting types this requester may see. */
  /**
   * With the away redirect (docs/public-scheduling.md "Away"): `redirect_to`, the alias to send the
   * requester to now (the page redirects); `away_note` when they came from `away_from` and that
   * link sends its requesters here now.
   */
  schedule: perIp
    .input(z.strictObject({ link: Link, away_from: Link.optional() }))
    .query(async ({ ctx, input }) => {
      const db = ctx.db;
      const away = await linkAwayState(db, input.link, input.away_from, ctx.now());
      return withCredential(ctx, async (bearer) => ({ ...(await publicSchedule(db, input.link, bearer)), ...away, has_credential: bearer !== null }));
    }),

  /**
   * A meeting type's page: title, durations and how many people may come; with
   * `suggested_times: true` also the first page of suggestions for the shortest
   * length (as `suggestedTimes` without arguments), so the page makes one call,
   * one link and type look-up and one rate-limit count (docs/benchmarks/history/2026-11-25-browser-pages.md).
   */
  meetingType: perIp
    .input(z.strictObject({ link: Link, slug: Slug, suggested_times: z.boolean().optional() }))
    .query(async ({ ctx, input }) => {
      const db = ctx.db;
      const now = ctx.now();
      // The owner is away and the link redirects: `redirect_to`, the colleague's link the page sends the requester to (no suggestions).
      const { redirect_to } = await linkAwayState(db, input.link, undefined, now);
      return withCredential(ctx, async (bearer) => {
        const type = await loadPublicType(db, input.link, input.slug, bearer);
        const suggested = input.suggested_times && !redirect_to ? instants(await suggestedTimes(db, type, {}, now)) : undefined;
        const answer: PublicMeetingTypePage & { suggested_times?: { start: string; end: string }[]; redirect_to?: string } = { ...meetingTypePage(type) };
        if (suggested) answer.suggested_times = suggested;
        if (redirect_to) answer.redirect_to = redirect_to;
        return answer;
      });
    }),

  /** Up to 50 free times (UTC); the page shows them in the requester's zone. */
  suggestedTimes: perIp
    .input(
      z.strictObject({
        link: Link,
        slug: Slug,
        duration_minutes: z.int().min(5).max(480).optional(),
        from: UtcDateTime.optional(),
        to: UtcDateTime.optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const db = ctx.db;
      const now = ctx.now();
      return withCredential(ctx, async (bearer) => {
        const r = await suggestedTimes(
          db,
          await loadPublicType(db, input.link, input.slug, bearer),
          { durationMinutes: input.duration_minutes, from: input.from ? new Date(input.from) : undefined, to: input.to ? new Date(input.to) : undefined },
          now,
        );
        return { suggested_times: instants(r) };
      });
    }),

  /**
   * The month view (docs/public-scheduling.md "Month view"): a month's days with free times in the
   * requester's zone, how many, and each day's bounds to ask `suggestedTimes` with.
   */
  freeDays: perIp
    .input(
      z.strictObject({
        link: Link,
        slug: Slug,
        duration_minutes: z.int().min(5).max(480).optional(),
        month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).optional(),
        time_zone: S.RequesterTimeZone,
      }),
    )
    .query(async ({ ctx, input }) => {
      const db = ctx.db;
      return withCredential(ctx, async (bearer) =>
        freeDays(db, await loadPublicType(db, input.link, input.slug, bearer), { durationMinutes: input.duration_minutes, month: input.month, timeZone: input.time_zone }, ctx.now()),
      );
    }),

  /**
   * Send a proposal (a suggested time of a type, or a free-text request). The
   * answer is the next step and the status page's address, never the
   * verification link: that one reaches the requester only by mail.
   */
  submit: perIp
    .input(S.ProposalSubmitBody.extend({ link: Link, time_zone: S.RequesterTimeZone.optional() }))
    .mutation(async ({ ctx, input }) => {
      const { link, time_zone, ...body } = input;
      const db = ctx.db;
      // The REST operation's key: one budget per client address and the link the alias or id resolves to.
      const linkId = await linkIdFor(db, link);
      if (linkId) await limit(RATE_LIMITS.publicProposalSubmit, rateLimitKeys.submit(ipOf(ctx), linkId));
      const baseUrl = publicBaseUrl(ctx.req, getConfig().publicBaseUrl);
      const out = await withCredential(ctx, (bearer) => submitProposal(db, link, bearer, body, baseUrl, ctx.now(), { requesterTimeZone: time_zone, requesterLocale: (linkDefault) => requestLocale(ctx.req, linkDefault) }));
      return { status: out.status, status_url: out.status_url, credential_rejected: out.credential_rejected };
    }),

  /**
   * "Join the waitlist" on a meeting type's page (docs/public-scheduling.md "Waitlist"): the request
   * form's budget (per address and link), the pages' language for the mails, the page's zone for
   * the day. The join mail carries the entry's page; the answer never does.
   */
  joinWaitlist: perIp
    .input(z.strictObject({ link: Link, slug: Slug, time_zone: S.RequesterTimeZone, form: S.WaitlistJoinForm }))
    .mutation(async ({ ctx, input }) => {
      const db = ctx.db;
      const linkId = await linkIdFor(db, input.link);
      if (linkId) await limit(RATE_LIMITS.publicProposalSubmit, rateLimitKeys.submit(ipOf(ctx), linkId));
      const baseUrl = publicBaseUrl(ctx.req, getConfig().publicBaseUrl);
      const link = await loadPublicLink(db, input.link);
      const f = input.form;
      return withCredential(ctx, (bearer) =>
        joinPublicWaitlist(
          db,
          input.link,
          bearer,
          { slug: input.slug, durationMinutes: f.duration_minutes, date: f.date, from: f.from, to: f.to, timeZone: input.time_zone, name: f.name, email: f.email },
          { baseUrl, locale: requestLocale(ctx.req, link.link.defaultLanguage), now: ctx.now() },
        ),
      );
    }),

  /** A waitlist entry's page: what it waits for, and the held time while offered. */
  waitlist: perEntry.query(async ({ ctx, input }) => publicWaitlistPage(ctx.db, input.token, ctx.now())),

  /** Confirm the offered time (409 offer_not_open once it lapsed): booked or sent for review as the type says. */
  confirmWaitlistOffer: perEntry.mutation(async ({ ctx, input }) => confirmWaitlistOffer(ctx.db, input.token, ctx.now())),

  /** Decline the offered time, or leave the waitlist while waiting. */
  leaveWaitlist: perEntry.mutation(async ({ ctx, input }) => leaveWaitlistByToken(ctx.db, input.token, ctx.now())),

  /** The status page: the request in words, refreshed by the page while pending. */
  status: perToken.query(async ({ ctx, input }) => proposalStatusPage(ctx.db, input.token, ctx.now())),

  /** Withdraw a pending proposal (anything else: 409 not_pending). */
  withdraw: perToken.mutation(async ({ ctx, input }) => {
    const db = ctx.db;
    await withdrawProposal(db, input.token, null, ctx.now());
    return proposalStatusPage(db, input.token, ctx.now());
  }),

  /**
   * Cancel the booked meeting (before it starts), with an optional reason:
   * the owner is mailed, the booking's agent notified, the time freed
   * (anything else: 409 not_cancellable). Same per-token budget as withdraw.
   */
  cancelMeeting: perIp
    .input(S.CancelMeetingInput.extend({ token: Token }))
    .use(perProposal)
    .mutation(async ({ ctx, input }) => {
      const db = ctx.db;
      await cancelBookedMeeting(db, input.token, input.reason ?? null, ctx.now());
      return proposalStatusPage(db, input.token, ctx.now());
    }),

  /**
   * "Ask to move" (docs/public-scheduling.md "Asking to move"): the times the booked meeting
   * could move to, the meeting type's suggested times for its length (UTC; the page shows them
   * in the requester's zone), from `from` on. Same per-token budget as the status.
   */
  moveTimes: perIp
    .input(z.strictObject({ token: Token, from: UtcDateTime.optional() }))
    .use(perProposal)
    .query(async ({ ctx, input }) => moveSuggestions(ctx.db, input.token, { from: input.from ? new Date(input.from) : undefined }, ctx.now())),

  /**
   * Ask to move the booked meeting to one of those times, with an optional note: a proposal
   * linked to the booking waits for the owner's review (or, on a book-instantly type, moves
   * it at once). 409 time_unavailable (pick again), move_pending, not_movable.
   */
  requestMove: perIp
    .input(S.MoveRequestNote.extend({ token: Token, start: UtcDateTime, end: UtcDateTime, time_zone: S.RequesterTimeZone.optional() }))
    .use(perProposal)
    .mutation(async ({ ctx, input }) => {
      const db = ctx.db;
      const baseUrl = publicBaseUrl(ctx.req, getConfig().publicBaseUrl);
      await requestMove(db, input.token, { start: new Date(input.start), end: new Date(input.end), note: input.note ?? null, timeZone: input.time_zone }, baseUrl, ctx.now());
      return proposalStatusPage(db, input.token, ctx.now());
    }),

  /**
   * Remember a requester credential (`rc_...`) for this browser, after
   * checking it is live and of the link's customer (else not_found, as on
   * the REST API). Stored in an HttpOnly cookie; the pages then show the
   * audience types it unlocks.
   */
  useCredential: perIp.input(z.strictObject({ link: Link, credential: z.string().trim().min(1).max(200) })).mutation(async ({ ctx, input }) => {
    const db = ctx.db;
    const link = await loadPublicLink(db, input.link);
    await resolveRequester(db, input.credential, link.link.customerId);
    ctx.resHeaders?.append('set-cookie', credentialCookie(input.credential, ctx.req));
    return { saved: true };
  }),

  /** Forget the saved credential. */
  forgetCredential: perIp.mutation(({ ctx }) => {
    ctx.resHeaders?.append('set-cookie', clearCredentialCookie(ctx.req));
    return { saved: false };
  }),
});
