import fc from 'fast-check';
import { newId } from '@/server/domain/ids';
import { api, newCustomer, uniqueEmail } from '../../helpers/app';
import { directAgents } from '../scheduling/fixtures';
import { ALL_PERMISSIONS, buildWorld, type World } from '../security/world';
import { documentedCodes } from '../../helpers/openapiDoc';
import { HOSTILE_SEGMENTS } from './harness';
import type { Hints, Schema } from './schema';

/**
 * What the fuzzers aim at: the OpenAPI document's operations, a world of
 * real objects (so generated requests reach past validation into the
 * handlers and the database), and the keys requests are sent with.
 */
export type DocOp = {
  operationId: string;
  method: string;
  path: string;
  security: unknown[];
  params: DocParam[];
  body?: Schema;
  /** The documented `error.code` enum per error status. */
  codes: Record<string, string[]>;
};
type DocParam = { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: Schema };

/** Every operation of the served document (GET /v1/openapi.json). */
export async function documentOperations(): Promise<{ doc: { components?: { schemas?: Record<string, Schema> } }; ops: DocOp[] }> {
  const res = await api('GET', '/v1/openapi.json');
  if (res.status !== 200) throw new Error(`openapi.json: ${res.status}`);
  const ops: DocOp[] = [];
  type DocResponse = { $ref?: string; content?: Record<string, { schema?: unknown }> };
  type DocEntry = { operationId: string; security?: unknown[]; parameters?: DocParam[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; responses: Record<string, DocResponse> };
  for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, DocEntry>>)) {
    for (const [method, op] of Object.entries(item)) {
      ops.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        security: op.security ?? [],
        params: (op.parameters ?? []) as DocParam[],
        body: op.requestBody?.content?.['application/json']?.schema,
        codes: Object.fromEntries(
          Object.entries(op.responses).map(([status, r]) => [status, documentedCodes(res.body, r)]),
        ),
      });
    }
  }
  return { doc: res.body, ops };
}

type Keys = {
  /** org:* agents with every permission (several, so per-key limits of 120/min do not flatten the fuzz). */
  admins: string[];
  foreign: string;
  limited: string;
  userScoped: string;
  revoked: string;
  disabled: string;
};

export type Target = { world: World; foreignWorld: World; keys: Keys; hints: Hints; segmentArb: (path: string, name: string) => fc.Arbitrary<string>; authArb: (op: DocOp) => fc.Arbitrary<string | null> };

export async function buildTarget(ip: () => string): Promise<Target> {
  const world = await buildWorld(ip);
  const foreignWorld = await buildWorld(ip, { customer: await newCustomer() });
  const admins = (await directAgents(world.admin, 6, ALL_PERMISSIONS)).map((a) => a.key);
  const [limited] = await directAgents(world.admin, 1, ['read_availability']);
  const [userScoped] = await directAgents(world.admin, 1, ALL_PERMISSIONS, `user:${world.otherOwnerEmail}`);
  const [revoked] = await directAgents(world.admin, 1, ALL_PERMISSIONS);
  const [disabled] = await directAgents(world.admin, 1, ALL_PERMISSIONS);
  const d = await api('PATCH', `/v1/agents/${disabled.agentId}`, { key: world.admin.key, body: { disabled: true }, ip: ip() });
  if (d.status !== 200) throw new Error(`disable: ${d.text}`);
  const keyRows = await api('POST', `/v1/agents/${revoked.agentId}/keys`, { key: world.admin.key, body: {}, ip: ip() });
  const revoke = await api('DELETE', `/v1/agents/${revoked.agentId}/keys/${keyRows.body.key_id}`, { key: world.admin.key, ip: ip() });
  if (revoke.status !== 200) throw new Error(`revoke: ${revoke.text}`);
  const keys: Keys = { admins, foreign: foreignWorld.admin.key, limited: limited.key, userScoped: userScoped.key, revoked: keyRows.body.api_key, disabled: disabled.key };

  const w = world;
  const pub = foreignWorld; // the public side aims at the other customer's link, which no /v1 fuzz request can delete
  const times = ['08:00', '09:00', '09:30', '10:00', '10:30', '11:00', '12:00', '13:00', '14:00', '16:30', '17:00', '23:30'];
  const instant = fc.oneof(fc.constantFrom(...times).map((t) => w.day.at(t)), fc.constantFrom(new Date(Date.now() - 86_400_000).toISOString(), '2020-01-01T00:00:00.000Z'));
  const interval = fc
    .tuple(fc.integer({ min: 0, max: times.length - 2 }), fc.constantFrom(1, 1, 2, 4))
    .map(([i, n]) => ({ start: w.day.at(times[i]), end: w.day.at(times[Math.min(i + n, times.length - 1)]) }));
  const freshEmail = fc.constant(null).map(() => uniqueEmail('fz'));
  const fresh = (prefix: string) => fc.constant(null).map(() => `${prefix}-${newId().slice(-10)}`);

  const hints: Hints = (name, schema) => {
    const isArray = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
    switch (name) {
      case 'owner_email':
        return fc.constantFrom(w.ownerEmail, w.otherOwnerEmail, w.ownerEmail.toUpperCase(), `nobody@${w.ownerEmail.split('@')[1]}`);
      case 'email':
        return fc.oneof(freshEmail, fc.constantFrom(w.ownerEmail, `someone@${newId().slice(-8)}.example.com`));
      case 'meeting_class':
        return fc.constantFrom('external', 'internal', 'focus', 'guarded', 'unknown-class');
      case 'start':
      case 'end':
      case 'from':
      case 'to':
        return instant;
      case 'window':
      case 'candidate':
      case 'requested_window':
        return interval;
      case 'duration_minutes':
        return isArray ? fc.constantFrom([30], [30, 60], [15, 30, 45]) : fc.constantFrom(30, 60, 15);
      case 'time_zone':
        return fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Mars/Olympus_Mons');
      case 'owner_scope':
        return fc.constantFrom('org:*', `user:${w.ownerEmail}`, `user:${w.otherOwnerEmail}`, 'user:nobody@example.com');
      case 'link_id':
        return fc.constantFrom(w.linkId, w.alias, pub.linkId);
      case 'slug':
      case 'public_meeting_type':
        return fc.oneof(fc.constantFrom(w.slug, 'intro'), fresh('t'));
      case 'alias':
        return fc.oneof(fresh('fz'), fc.constantFrom(w.alias, 'admin', 'ab', 'UPPER-case'));
      case 'domain':
        return fc.oneof(fresh('d').map((d) => `${d}.example.com`), fc.constantFrom('localhost', 'example', '*.example.com', '-bad-.example.com', '127.0.0.1'));
      case 'audience':
        return fc.constantFrom(w.audienceName, null, 'no-such-audience');
      case 'name':
        return fc.oneof(fresh('n'), fc.constantFrom(w.audienceName));
      case 'visibility':
        return fc.constantFrom('public', 'unlisted', 'audience');
      case 'members':
        return fc.constantFrom([], [{ email: uniqueEmail('m') }], [{ domain: 'example.com' }]);
      case 'attendees':
        return fc.constantFrom([], [{ email: uniqueEmail('a'), name: 'Ann' }]);
      case 'cursor':
        return fc.constantFrom('eyJ4IjoxfQ', 'not-a-cursor', Buffer.from('{"id":"x","at":"nope"}').toString('base64url'), '');
      default:
        return undefined;
    }
  };

  // path parameter -> real ids of the kind the path names (ours and the foreign customer's), or hostile segments
  const idsBySegment: Record<string, string[]> = {
    agents: [w.victimAgentId, pub.victimAgentId],
    keys: [w.victimKeyId, pub.victimKeyId],
    holds: [w.holdId, pub.holdId],
    bookings: [w.bookingId, w.holdId, pub.bookingId],
    links: [w.linkId, w.alias, pub.linkId],
    'meeting-types': [w.slug, 'nope'],
    domains: [w.domainId, pub.domainId],
    'requester-identities': [w.identityId, pub.identityId],
    credentials: [w.credentialId, pub.credentialId],
    audiences: [w.audienceId, pub.audienceId],
    allocations: [w.allocationId, pub.allocationId],
    'booking-proposals': [w.proposalId, pub.proposalId, pub.statusToken, w.statusToken].filter((x): x is string => Boolean(x)),
    schedules: [pub.alias, pub.linkId, pub.alias.toUpperCase(), w.alias],
    'contact-verifications': [pub.verificationToken, w.verificationToken].filter((x): x is string => Boolean(x)),
  };
  const segmentArb = (path: string, name: string) => {
    const parts = path.split('/');
    const prev = parts[parts.indexOf(`{${name}}`) - 1];
    const ids = idsBySegment[prev] ?? [];
    return fc.oneof(
      { weight: ids.length ? 6 : 0, arbitrary: ids.length ? fc.constantFrom(...ids).map(encodeURIComponent) : fc.constant('x') },
      { weight: 1, arbitrary: fc.constant(null).map(() => newId()) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    );
  };

  const authArb = (op: DocOp): fc.Arbitrary<string | null> => {
    if (op.path.startsWith('/public')) return fc.constantFrom<string | null>(null, null, null, null, w.credential, pub.credential, 'rc_' + 'x'.repeat(43), keys.admins[0]);
    if (!op.security.length) return fc.constantFrom<string | null>(null, keys.admins[0]);
    return fc.oneof(
      { weight: 16, arbitrary: fc.constantFrom(...keys.admins) },
      { weight: 4, arbitrary: fc.constantFrom<string | null>(keys.foreign, keys.limited, keys.userScoped, keys.revoked, keys.disabled, null, 'ak_' + 'x'.repeat(43), 'rc_' + 'y'.repeat(43)) },
    );
  };
  return { world, foreignWorld, keys, hints, segmentArb, authArb };
}
