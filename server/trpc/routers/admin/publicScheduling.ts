import { z } from 'zod';
import { domains, links, meetingTypes } from '@/server/domain/publicScheduling/admin';
import { getConfig } from '@/server/config';
import { publicBaseUrl } from '@/server/request';
import { DomainCreateBody, LinkCreateBody, LinkPatchBody, MeetingTypeCreateBody, MeetingTypePatchBody } from '@/server/schemas/publicAdmin';
import { Email, Id } from '@/server/schemas/common';
import { adminProcedure, router } from '../../init';

const PAGE = { limit: 200 } as const;

/**
 * Public scheduling administration (the /v1/public-scheduling/... calls):
 * links with their alias check, and each link's meeting types. The admin
 * owner acts with the whole customer in scope and is the audit log's actor (ctx.actor).
 */
export const publicSchedulingRouter = router({
  links: router({
    list: adminProcedure.query(async ({ ctx }) => {
      const base = publicBaseUrl(ctx.req, getConfig().publicBaseUrl);
      const page = await links.listLinks(ctx.db, ctx.owner.customerId, ctx.actor, PAGE);
      // page_url: the booking page people open (the dashboard shows it with Copy and Open).
      return { links: page.items.map((r) => ({ ...links.linkView(r, base), page_url: links.bookingPageUrl(base, r.link.alias) })) };
    }),

    /** The same alias rules as creating a link, answered as you type. */
    checkAlias: adminProcedure.input(z.strictObject({ alias: z.string().max(256) })).query(({ ctx, input }) => links.checkAlias(ctx.db, input.alias)),

    create: adminProcedure
      .input(LinkCreateBody.extend({ owner_email: Email }))
      .mutation(async ({ ctx, input }) =>
        links.linkView(await links.createLink(ctx.db, ctx.owner.customerId, input.owner_email, input, ctx.now(), ctx.actor), publicBaseUrl(ctx.req, getConfig().publicBaseUrl)),
      ),

    /** PATCH .../links/{link_id}: alias, title, and the away redirect (docs/public-scheduling.md "Away"). */
    update: adminProcedure
      .input(z.strictObject({ link_id: Id, patch: LinkPatchBody }))
      .mutation(async ({ ctx, input }) =>
        links.linkView(await links.updateLink(ctx.db, ctx.owner.customerId, ctx.actor, input.link_id, input.patch, ctx.now()), publicBaseUrl(ctx.req, getConfig().publicBaseUrl)),
      ),

    delete: adminProcedure
      .input(z.strictObject({ link_id: Id }))
      .mutation(async ({ ctx, input }) => links.linkView(await links.deleteLink(ctx.db, ctx.owner.customerId, ctx.actor, input.link_id, ctx.now()), '')),
  }),

  meetingTypes: router({
    list: adminProcedure.input(z.strictObject({ link_id: Id })).query(async ({ ctx, input }) => {
      const page = await meetingTypes.listLinkMeetingTypes(ctx.db, ctx.owner.customerId, ctx.actor, input.link_id, PAGE);
      return { meeting_types: page.items.map(meetingTypes.meetingTypeView) };
    }),

    create: adminProcedure
      .input(z.strictObject({ link_id: Id, body: MeetingTypeCreateBody }))
      .mutation(async ({ ctx, input }) =>
        meetingTypes.meetingTypeView(await meetingTypes.createMeetingType(ctx.db, ctx.owner.customerId, ctx.actor, input.link_id, input.body, ctx.now())),
      ),

    /** Change any field after creation (PATCH .../meeting-types/{slug}): the same checks, e.g. invalid_public_preempt_policy. */
    update: adminProcedure
      .input(z.strictObject({ link_id: Id, slug: z.string().min(1).max(100), patch: MeetingTypePatchBody }))
      .mutation(async ({ ctx, input }) =>
        meetingTypes.meetingTypeView(await meetingTypes.updateMeetingType(ctx.db, ctx.owner.customerId, ctx.actor, input.link_id, input.slug, input.patch, ctx.now())),
      ),
  }),

  /** Verified domains: the TXT challenge to publish and a "verify now" (the look-up of POST .../verify). */
  domains: router({
    list: adminProcedure.query(async ({ ctx }) => ({ domains: (await domains.listDomains(ctx.db, ctx.owner.customerId, ctx.actor, PAGE)).items.map(domains.domainView) })),
    create: adminProcedure.input(DomainCreateBody).mutation(async ({ ctx, input }) => domains.domainView(await domains.createDomain(ctx.db, ctx.owner.customerId, ctx.actor, input, ctx.now()))),
    verify: adminProcedure
      .input(z.strictObject({ domain_id: Id }))
      .mutation(async ({ ctx, input }) => domains.domainView(await domains.verifyDomain(ctx.db, ctx.owner.customerId, ctx.actor, input.domain_id, getConfig().dnsResolver, ctx.now()))),
    delete: adminProcedure
      .input(z.strictObject({ domain_id: Id }))
      .mutation(async ({ ctx, input }) => domains.domainView(await domains.deleteDomain(ctx.db, ctx.owner.customerId, ctx.actor, input.domain_id, ctx.now()))),
  }),
});
