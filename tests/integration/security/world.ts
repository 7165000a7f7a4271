import { PERMISSIONS } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { api, newCustomer, uniqueEmail, type ApiOptions, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { nextWeekday, STANDARD_CLASSES } from '../scheduling/fixtures';
import { withOutboundSetting } from '../../helpers/outbound';

/**
 * One customer with one object of every kind the API can make, created over
 * HTTP (so every secret the API hands out is seen once, as a client sees it).
 * Used by the security tests (isolation, owner scope, secrets at rest) and by
 * the fuzzers (ids and names that reach deep into the handlers).
 *
 * Each caller passes its own client-address prefix: the 600/min per-IP limit
 * is shared through Redis on the PostgreSQL project.
 */
export type World = {
  admin: TestCustomer;
  ownerEmail: string;
  /** A second owner of the same customer (the target of `user:` scoped agents in the owner-scope test). */
  otherOwnerEmail: string;
  day: ReturnType<typeof nextWeekday>;
  holdId: string;
  bookingId: string;
  /** The admin agent's waitlist entry for the owner (docs/api.md "Waitlist"). */
  waitlistId: string;
  victimAgentId: string;
  victimKeyId: string;
  /** The victim agent's key (plaintext). */
  victimKey: string;
  linkId: string;
  alias: string;
  slug: string;
  domainId: string;
  identityId: string;
  credentialId: string;
  /** The rc_ requester credential (plaintext, as minted). */
  credential: string;
  audienceId: string;
  audienceName: string;
  allocationId: string;
  /** The owner's (internal) calendar. */
  calendarId: string;
  /** A pool of both owners (docs/groups.md "Pools"). */
  poolId: string;
  /** An approval rule of the owner (a class nothing else books). */
  approvalPolicyId: string;
  /** A meeting class only this customer has (by name: classes are customer-scoped). */
  className: string;
  /** A webhook endpoint of the admin agent. */
  webhookId: string;
  /** Agent proposal (POST /v1/booking-proposals), when the endpoint answers 201. */
  proposalId: string | null;
  /** Public proposal tokens (from status_url / contact_verification_url), when submission answers 201. */
  statusToken: string | null;
  verificationToken: string | null;
  /** Every plaintext secret seen in a response: ak_, rc_, pt_, cv_. */
  secrets: string[];
  /** Every /public response made while building the world. */
  publicResponses: ApiResponse[];
};

export const ALL_PERMISSIONS = [...PERMISSIONS];

/** A client-address generator under a random /16 (one per file). */
export function ipPool(first = 10): () => string {
  const b = Math.floor(Math.random() * 254) + 1;
  return () => `${first}.${b}.${Math.floor(Math.random() * 254) + 1}.${Math.floor(Math.random() * 254) + 1}`;
}

function must(res: ApiResponse, status: number | number[], what: string): ApiResponse {
  const ok = Array.isArray(status) ? status.includes(res.status) : res.status === status;
  if (!ok) throw new Error(`world setup: ${what} answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res;
}

/** The token at the end of a public URL (status_url, contact_verification_url). */
export function tokenOf(url: string): string {
  const parts = new URL(url).pathname.split('/').filter(Boolean);
  return parts[parts[parts.length - 1] === 'confirm' ? parts.length - 2 : parts.length - 1];
}

export async function buildWorld(ip: () => string, opts: { customer?: TestCustomer } = {}): Promise<World> {
  const call = (method: string, path: string, o: ApiOptions = {}) => api(method, path, { ip: ip(), ...o });
  const admin = opts.customer ?? (await newCustomer());
  const key = admin.key;
  const secrets: string[] = [admin.key];
  const publicResponses: ApiResponse[] = [];
  const ownerEmail = uniqueEmail('world');
  const otherOwnerEmail = uniqueEmail('other');
  const r = [{ start: '09:00', end: '17:00' }];
  for (const email of [ownerEmail, otherOwnerEmail]) {
    must(await call('POST', '/v1/owners', { key, body: { email, name: 'World Owner', time_zone: 'UTC' } }), 201, 'owner');
    must(
      await call('PUT', '/v1/schedule-rules', { key, body: { owner_email: email, working_hours: { mon: r, tue: r, wed: r, thu: r, fri: r }, hard_blocks: [] } }),
      200,
      'rules',
    );
  }
  for (const c of STANDARD_CLASSES) must(await call('POST', '/v1/meeting-classes', { key, body: c }), [201, 409], 'class');
  const className = `world-${newId().slice(-8)}`;
  must(await call('POST', '/v1/meeting-classes', { key, body: { name: className, priority: 5 } }), 201, 'own class');

  const day = nextWeekday('wed', 'UTC');
  const hold = must(
    await call('POST', '/v1/holds', {
      key,
      body: { owner_email: ownerEmail, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('11:00'), end: day.at('11:30') }, ttl_seconds: 3600 },
    }),
    200,
    'hold',
  );
  const waitlist = must(
    await call('POST', '/v1/waitlist', { key, body: { owner_email: ownerEmail, meeting_class: 'internal', duration_minutes: 30, window_start: day.at('09:00'), window_end: day.at('12:00') } }),
    201,
    'waitlist entry',
  );
  const booking = must(
    await call('POST', '/v1/bookings', { key, body: { owner_email: ownerEmail, meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30'), title: 'World' } }),
    201,
    'booking',
  );

  const agent = must(await call('POST', '/v1/agents', { key, body: { name: 'victim', owner_scope: 'org:*', permissions: ['read_availability'] } }), 201, 'agent');
  const minted = must(await call('POST', `/v1/agents/${agent.body.agent_id}/keys`, { key, body: { name: 'victim key' } }), 201, 'key');
  secrets.push(minted.body.api_key);

  const P = '/v1/public-scheduling';
  const alias = `world-${newId().slice(-12)}`;
  const link = must(await call('POST', `${P}/links`, { key, body: { owner_email: ownerEmail, alias, title: 'World link' } }), 201, 'link');
  const slug = 'intro';
  must(
    await call('POST', `${P}/links/${link.body.link_id}/meeting-types`, { key, body: { slug, title: 'Intro', duration_minutes: [30, 60], meeting_class: 'external' } }),
    201,
    'meeting type',
  );
  const domain = must(await call('POST', `${P}/domains`, { key, body: { domain: `w-${newId().slice(-10)}.example.com` } }), 201, 'domain');
  const identity = must(await call('POST', `${P}/requester-identities`, { key, body: { email: uniqueEmail('requester') } }), 201, 'identity');
  const cred = must(await call('POST', `${P}/requester-identities/${identity.body.identity_id}/credentials`, { key, body: {} }), 201, 'credential');
  secrets.push(cred.body.requester_credential);
  const audienceName = `aud-${newId().slice(-10)}`;
  const audience = must(await call('POST', `${P}/audiences`, { key, body: { name: audienceName, members: [{ email: uniqueEmail('member') }] } }), 201, 'audience');
  const allocation = must(await call('POST', `${P}/allocations`, { key, body: { link_id: link.body.link_id, slug, limit: 5, period: 'week' } }), 201, 'allocation');

  const calendars = must(await call('GET', `/v1/calendars?owner_email=${encodeURIComponent(ownerEmail)}`, { key }), 200, 'calendars');
  const pool = must(
    await call('POST', '/v1/pools', { key, body: { name: `pool-${newId().slice(-10)}`, members: [{ owner_email: ownerEmail, weight: 1 }, { owner_email: otherOwnerEmail, weight: 2 }] } }),
    201,
    'pool',
  );
  // A loopback endpoint (never delivered to): registered with the outbound guard's setting on (docs/reliability.md).
  // An approval rule of the owner, for a class nothing else books (docs/api.md "Approval policies").
  must(await call('POST', '/v1/meeting-classes', { key, body: { name: 'approval-probe', priority: 10 } }), [201, 409], 'approval class');
  const approval = must(await call('POST', '/v1/approval-policies', { key, body: { owner_email: ownerEmail, meeting_class: 'approval-probe' } }), 201, 'approval policy');
  const webhook = must(await withOutboundSetting('1', () => call('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/security-world', events: ['booking.created'] } })), 201, 'webhook');
  secrets.push(webhook.body.secret);

  // Agent proposals and public submissions are being finished: use them where they answer.
  const proposal = await call('POST', '/v1/booking-proposals', {
    key,
    body: { owner_email: ownerEmail, meeting_class: 'external', duration_minutes: 30, window: { start: day.at('13:00'), end: day.at('16:00') }, attendees: [] },
  });
  const logLevel = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'silent'; // without SMTP_URL the verification mail goes to the log
  const submitted = await call('POST', `/public/schedules/${alias}/booking-proposals`, {
    body: { requester_contact: { email: uniqueEmail('requester'), name: 'Rita' }, attendees: [], message: 'Could we talk next week?' },
  });
  if (logLevel === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = logLevel;
  publicResponses.push(submitted);
  let statusToken: string | null = null;
  let verificationToken: string | null = null;
  if (submitted.status === 201) {
    statusToken = tokenOf(submitted.body.status_url);
    secrets.push(statusToken);
    if (submitted.body.contact_verification_url) {
      verificationToken = tokenOf(submitted.body.contact_verification_url);
      secrets.push(verificationToken);
    }
  }

  return {
    admin,
    ownerEmail,
    otherOwnerEmail,
    day,
    holdId: hold.body.hold_id,
    bookingId: booking.body.booking_id,
    waitlistId: waitlist.body.id,
    victimAgentId: agent.body.agent_id,
    victimKeyId: minted.body.key_id,
    victimKey: minted.body.api_key,
    linkId: link.body.link_id,
    alias,
    slug,
    domainId: domain.body.domain_id,
    identityId: identity.body.identity_id,
    credentialId: cred.body.credential_id,
    credential: cred.body.requester_credential,
    audienceId: audience.body.audience_id,
    poolId: pool.body.pool_id,
    audienceName,
    allocationId: allocation.body.allocation_id,
    calendarId: calendars.body.calendars[0].calendar_id,
    webhookId: webhook.body.id,
    approvalPolicyId: approval.body.policy_id,
    className,
    proposalId: proposal.status === 201 ? proposal.body.proposal_id : null,
    statusToken,
    verificationToken,
    secrets,
    publicResponses,
  };
}
