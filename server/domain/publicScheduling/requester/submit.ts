import type { Db } from '@/db/client';
import { bookingProposals, contactVerifications, type ProposalStatus } from '@/db/schema';
import { contactVerificationMessage, sendMail } from '../../email';
import { normalizeEmail } from '../../access';
import { DomainError, invalidField } from '../../errors';
import { derivedSecret, newId, newSecret, type NewSecret } from '../../ids';
import { findMeetingType, type MeetingTypeRecord } from '../admin';
import { loadPublicLink, publicNotFound, resolveRequester, typeReachable, type Requester } from './access';
import { assertSuggestable } from './schedule';
import { loadHosts, poolChoice } from './hosts';
import { afterPendingReview } from '../review/instant';
import { canonicalTimeZone } from '../../scheduling';
import { writeProposalAudit } from '../review/proposalAudit';
import { checkRepeatWeeks } from '../repeatWeekly';
import { assertWeeksFree } from './repeat';
import type { Locale } from '@/i18n/locales';

const HOUR = 3_600_000;
/** An unverified proposal (and its verification link) expires after this long. */
const VERIFICATION_TTL_MS = 24 * HOUR;
/** docs/public-scheduling.md "Submitting": at most this many `attendees` items on a public proposal (the requester not counted). */
const MAX_PUBLIC_ATTENDEES = 50;

type Person = { email: string; name?: string };
export type SubmitInput = {
  requester_contact: Person;
  attendees: Person[];
  public_meeting_type?: string;
  duration_minutes?: number;
  requested_window?: { start: string; end: string };
  reason?: string;
  message?: string;
  /** docs/public-scheduling.md "Repeating weekly": the meeting every week at this time, this many meetings in all. */
  repeat_weeks?: number;
};
export type SubmitResult = { status: Extract<ProposalStatus, 'pending_requester_verification' | 'pending_review'>; status_url: string; contact_verification_url?: string };

/** The status token of a proposal whose contact is verified with `verificationToken` (derived one-way, so the confirm page can link the status page). */
export function statusTokenFor(verificationToken: string): NewSecret {
  return derivedSecret('proposalToken', 'proposal-status', verificationToken);
}

function invalid(path: string, message: string): DomainError {
  return invalidField(path, message);
}

/** Distinct people on the meeting, the requester counted once. */
function headcount(input: SubmitInput): number {
  return new Set([input.requester_contact.email, ...input.attendees.map((a) => a.email)].map(normalizeEmail)).size;
}

/**
 * `attendees` holds at most 50 items, whatever they are (the requester is not
 * one of them); only a meeting type's own `attendee_limit` counts people, the
 * requester included (docs/public-scheduling.md "Proposals").
 */
function checkAttendees(input: SubmitInput, type: MeetingTypeRecord | null) {
  if (input.attendees.length > MAX_PUBLIC_ATTENDEES) {
    throw new DomainError('attendee_limit_exceeded', `At most ${MAX_PUBLIC_ATTENDEES} attendees may be listed`, { extra: { attendee_limit: MAX_PUBLIC_ATTENDEES } });
  }
  const limit = type?.type.attendeeLimit ?? null;
  if (limit !== null && headcount(input) > limit) {
    throw new DomainError('attendee_limit_exceeded', `At most ${limit} people may attend, counting the requester`, { extra: { attendee_limit: limit } });
  }
}

/**
 * POST /public/schedules/{id}/booking-proposals. Structured (a type, one of
 * its durations, and exactly a currently suggested time) or free-text (a
 * message; an optional requested window is a wish the owner reads). Stores
 * only hashes of the status and verification tokens and mails the requester
 * the verification link, unless a credential of the requester's own email
 * skips verification where the type allows it.
 */
export async function submitProposal(db: Db, idOrAlias: string, bearer: string | null, input: SubmitInput, baseUrl: string, now: Date, opts: { requesterTimeZone?: string; requesterLocale?: (linkDefault: Locale | null) => Locale } = {}): Promise<SubmitResult> {
  const link = await loadPublicLink(db, idOrAlias);
  // The zone the booking pages showed times in (their mail uses it); unknown or absent: the owner's.
  const requesterTimeZone = opts.requesterTimeZone ? canonicalTimeZone(opts.requesterTimeZone) : null;
  const requester: Requester | null = await resolveRequester(db, bearer, link.link.customerId);
  const email = normalizeEmail(input.requester_contact.email);

  let type: MeetingTypeRecord | null = null;
  let window: { start: Date; end: Date } | null = null;
  let duration: number | null = input.duration_minutes ?? null;
  let repeatWeeks: number | null = null;
  let weeks: { start: Date; end: Date }[] | null = null;
  if (input.public_meeting_type !== undefined) {
    type = await findMeetingType(db, link.link.id, input.public_meeting_type);
    if (!type || !(await typeReachable(db, type, requester))) throw publicNotFound('Public meeting type not found');
    if (duration === null) throw invalid('duration_minutes', 'required with public_meeting_type');
    if (!input.requested_window) throw invalid('requested_window', 'required with public_meeting_type');
    if (!type.type.durationMinutes.includes(duration)) throw invalid('duration_minutes', `must be one of ${type.type.durationMinutes.join(', ')}`);
    window = { start: new Date(input.requested_window.start), end: new Date(input.requested_window.end) };
    repeatWeeks = checkRepeatWeeks(type.type, input.repeat_weeks);
  } else {
    if (input.repeat_weeks !== undefined) throw invalid('repeat_weeks', 'only with public_meeting_type (a type that offers repeating weekly)');
    if (!input.message?.trim()) throw invalid('message', 'required for a free-text request (without public_meeting_type)');
    if (input.requested_window) {
      window = { start: new Date(input.requested_window.start), end: new Date(input.requested_window.end) };
      const minutes = (window.end.getTime() - window.start.getTime()) / 60_000;
      if (!(minutes >= 5 && minutes <= 480)) throw invalid('requested_window', 'must span 5 to 480 minutes');
      if (duration !== null && duration !== minutes) throw invalid('duration_minutes', 'must equal the length of requested_window');
      if (window.start < now) throw new DomainError('time_unavailable', 'The requested time is in the past');
      duration = minutes;
    }
  }
  checkAttendees(input, type);
  // Who the proposal goes to (docs/public-scheduling.md "Several hosts"): the link's owner; every
  // host of a collective type (each one's inbox, the first named the proposal's owner); or the
  // member a pool type's rule picks now among those free at the time.
  let host = { id: link.owner.id, email: link.owner.email, name: link.owner.name, timeZone: link.owner.timeZone };
  let hostOwnerIds: string[] | null = null;
  let poolAssignment: typeof bookingProposals.$inferInsert.poolAssignment = null;
  if (type && window) {
    const hosts = type.type.hostMode === 'single' ? null : await loadHosts(db, type, now);
    const slot = await assertSuggestable(db, { link, type, requester }, duration!, window, now, hosts);
    if (hosts) {
      const chosen = hosts.mode === 'pool' ? poolChoice(hosts, slot.accepting ?? []) : null;
      const lead = chosen?.host ?? hosts.hosts[0];
      host = { id: lead.target.owner.id, email: lead.target.owner.email, name: lead.target.owner.name, timeZone: lead.target.owner.timeZone };
      if (hosts.mode === 'collective') hostOwnerIds = hosts.hosts.map((h) => h.target.owner.id);
      if (chosen) poolAssignment = chosen.assignment;
    }
    // Every later week free too, or the request is refused naming the weeks that are not (nothing is claimed yet).
    if (repeatWeeks) weeks = await assertWeeksFree(db, { link, type, requester }, duration!, window, repeatWeeks, now);
  }

  const skipsVerification = Boolean(requester && type?.type.credentialSkipsVerification && requester.email === email);
  const status: SubmitResult['status'] = skipsVerification ? 'pending_review' : 'pending_requester_verification';
  const verification = skipsVerification ? null : newSecret('verificationToken');
  const accessToken = verification ? statusTokenFor(verification.secret) : newSecret('proposalToken');
  const proposalId = newId(now.getTime());
  const expiresAt = new Date(now.getTime() + VERIFICATION_TTL_MS);

  await db.transaction(async (tx) => {
    const [row] = await tx.insert(bookingProposals).values({
      id: proposalId,
      customerId: link.link.customerId,
      ownerId: host.id,
      hostOwnerIds,
      poolAssignment,
      origin: 'public',
      linkId: link.link.id,
      meetingTypeId: type?.type.id ?? null,
      meetingClassId: type?.type.meetingClassId ?? null,
      requesterIdentityId: requester?.identityId ?? null,
      status,
      requesterEmail: email,
      requesterName: input.requester_contact.name ?? null,
      requesterTimeZone,
      // The pages' language: the request's own choice, else the link's default (docs/public-scheduling.md "Languages").
      requesterLocale: opts.requesterLocale?.(link.link.defaultLanguage) ?? null,
      attendees: input.attendees.map((a) => ({ email: normalizeEmail(a.email), ...(a.name ? { name: a.name } : {}) })),
      durationMinutes: duration,
      requestedStart: window?.start ?? null,
      requestedEnd: window?.end ?? null,
      repeatWeeks,
      reason: input.reason ?? null,
      message: input.message ?? null,
      accessTokenHash: accessToken.hash,
      createdAt: now,
      updatedAt: now,
      expiresAt: verification ? expiresAt : null,
    }).returning();
    // The requester's own act, recorded with the contact email they gave (docs/reliability.md, "Audit actors").
    await writeProposalAudit(tx, row, { action: 'proposal.submit', actor: { kind: 'requester', email }, ownerEmail: host.email, at: now });
    if (verification) {
      await tx.insert(contactVerifications).values({ id: newId(now.getTime()), customerId: link.link.customerId, proposalId, tokenHash: verification.hash, email, createdAt: now, expiresAt });
    }
  });

  const base = baseUrl.replace(/\/+$/, '');
  const result: SubmitResult = { status, status_url: `${base}/public/booking-proposals/${accessToken.secret}` };
  if (verification) {
    result.contact_verification_url = `${base}/public/contact-verifications/${verification.secret}/confirm`;
    await sendMail(
      contactVerificationMessage(email, { title: type?.type.title ?? null, ownerName: host.name, start: window?.start, end: window?.end, timeZone: requesterTimeZone ?? host.timeZone, weeks }, {
        verificationUrl: result.contact_verification_url,
        statusUrl: result.status_url,
      }, opts.requesterLocale?.(link.link.defaultLanguage) ?? 'en'),
    );
  }
  else await afterPendingReview(db, proposalId, base, now);
  return result;
}
