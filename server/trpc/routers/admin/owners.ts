import { z } from 'zod';
import { sendOwnerInvitation } from '@/server/auth/invitation';
import type { OwnerActor } from '@/server/domain/adminAudit';
import { adminOverview } from '@/server/domain/adminOverview';
import { createOwner, inviteOwner, listOwners, ownerView, type OwnerRow } from '@/server/domain/ownerService';
import { OwnerCreateBody } from '@/server/schemas/admin';
import { Email } from '@/server/schemas/common';
import { adminProcedure, router, type TrpcContext } from '../../init';
import type { OwnerSession } from '@/server/auth/ownerSession';

const Role = z.enum(['admin', 'member']);

/** Mark the owner invited (audited owner.invite) and mail the sign-in link. */
async function invite(ctx: TrpcContext & { owner: OwnerSession; actor: OwnerActor }, email: string) {
  const now = ctx.now();
  const o: OwnerRow = await inviteOwner(ctx.db, ctx.owner.customerId, email, now, ctx.actor);
  return sendOwnerInvitation(ctx.db, ctx.req, { email: o.email, ownerName: o.name, invitedBy: ctx.owner.email }, now);
}

/** Calendar owners (POST /v1/owners), with role and calendars for the admin console; invitations to the dashboard. */
export const ownersRouter = router({
  list: adminProcedure.query(async ({ ctx }) => ({ owners: await listOwners(ctx.db, ctx.owner.customerId) })),
  /** What the console opens on: owners, links, today's requests (docs/dashboard.md "Overview"). */
  overview: adminProcedure.query(async ({ ctx }) => adminOverview(ctx.db, ctx.owner.customerId, ctx.owner.ownerId, ctx.now())),
  create: adminProcedure
    .input(OwnerCreateBody.extend({ role: Role.optional() }))
    .mutation(async ({ ctx, input }) => ownerView(await createOwner(ctx.db, ctx.owner.customerId, input, ctx.actor))),

  /** Create the owner (the rules of POST /v1/owners) and email them a sign-in link to the dashboard. */
  invite: adminProcedure.input(OwnerCreateBody.extend({ role: Role.optional() })).mutation(async ({ ctx, input }) => {
    const o = await createOwner(ctx.db, ctx.owner.customerId, input, ctx.actor);
    return { owner: ownerView(o), invitation: await invite(ctx, o.email) };
  }),

  /** Email an existing owner a (new) invitation: a fresh one-time link; earlier unused links keep working until they expire. */
  sendInvitation: adminProcedure.input(z.strictObject({ email: Email })).mutation(async ({ ctx, input }) => ({ invitation: await invite(ctx, input.email) })),
});
