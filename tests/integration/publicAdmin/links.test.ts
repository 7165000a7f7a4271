import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { newId } from '@/server/domain/ids';
import { findLinkByIdOrAlias } from '@/server/domain/publicScheduling/admin';
import { expectEnvelope, newAgent, type TestCustomer } from '../../helpers/app';
import { addOwner, call, createLink, createType, P, setupCustomer, uniqueAlias } from './helpers';

let admin: TestCustomer & { ownerEmail: string };
let foreign: TestCustomer & { ownerEmail: string };
beforeAll(async () => {
  admin = await setupCustomer();
  foreign = await setupCustomer();
});

describe('public links', () => {
  it('creates (201, url from the base), reads, renames, lists and soft-deletes a link', async () => {
    const alias = uniqueAlias('ada');
    const res = await call('POST', `${P}/links`, { key: admin.key, body: { owner_email: admin.ownerEmail.toUpperCase(), alias, title: 'Talk to Ada' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ alias, title: 'Talk to Ada', owner_email: admin.ownerEmail, url: `http://scheduler.test/public/schedules/${alias}` });
    expect(res.body.link_id).toMatch(/^[0-9a-f-]{36}$/);
    const id = res.body.link_id;

    expect((await call('GET', `${P}/links/${id}`, { key: admin.key })).body).toEqual(res.body);
    const renamed = await call('PATCH', `${P}/links/${id}`, { key: admin.key, body: { alias: `${alias}-x`, title: null } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ alias: `${alias}-x`, title: null, url: `http://scheduler.test/public/schedules/${alias}-x` });
    // the old alias is free again once renamed
    expect((await call('POST', `${P}/links`, { key: admin.key, body: { owner_email: admin.ownerEmail, alias } })).status).toBe(201);

    const list = await call('GET', `${P}/links?owner_email=${encodeURIComponent(admin.ownerEmail)}&limit=1`, { key: admin.key });
    expect(list.status).toBe(200);
    expect(list.body.links).toHaveLength(1);
    const next = await call('GET', `${P}/links?owner_email=${encodeURIComponent(admin.ownerEmail)}&limit=1&cursor=${list.body.next_cursor}`, { key: admin.key });
    expect(next.body.links[0].link_id).not.toBe(list.body.links[0].link_id);

    const del = await call('DELETE', `${P}/links/${id}`, { key: admin.key });
    expect(del.status).toBe(200);
    expect(typeof del.body.deleted_at).toBe('string');
    expectEnvelope(await call('GET', `${P}/links/${id}`, { key: admin.key }), 404, 'not_found');
    expectEnvelope(await call('DELETE', `${P}/links/${id}`, { key: admin.key }), 404, 'not_found');
    expect(await findLinkByIdOrAlias(await getDb(), id)).toBeNull();
    // a deleted link's alias stays taken
    expectEnvelope(await call('POST', `${P}/links`, { key: admin.key, body: { owner_email: admin.ownerEmail, alias: `${alias}-x` } }), 409, 'duplicate_alias');
  });

  it('refuses invalid aliases: shape, length, reserved words and id-shaped values', async () => {
    const post = (alias: string) => call('POST', `${P}/links`, { key: admin.key, body: { owner_email: admin.ownerEmail, alias } });
    for (const alias of ['ab', 'a'.repeat(65), 'Ada-Smith', 'ada_smith', '-ada', 'ada-', 'ada smith', 'ädä', '']) {
      expectEnvelope(await post(alias), 400, 'invalid_alias');
    }
    for (const alias of ['admin', 'api', 'app', 'public', 'v1', 'book', 'dashboard', 'docs', 'login', 'settings', 'static', 'assets', 'schedules']) {
      const err = expectEnvelope(await post(alias), 400, 'invalid_alias');
      expect(err.message).toContain('reserved');
    }
    for (const alias of [newId(), '01234567-89ab-cdef-0123-456789abcdef', 'abcdefgh-ijkl-mnop-qrst-uvwxyzabcdef']) {
      expectEnvelope(await post(alias), 400, 'invalid_alias');
    }
    const link = await createLink(admin, admin.ownerEmail);
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}`, { key: admin.key, body: { alias: 'login' } }), 400, 'invalid_alias');
  });

  it('aliases are global: taken by another customer is 409 duplicate_alias', async () => {
    const alias = uniqueAlias();
    await createLink(foreign, foreign.ownerEmail, alias);
    expectEnvelope(await call('POST', `${P}/links`, { key: admin.key, body: { owner_email: admin.ownerEmail, alias } }), 409, 'duplicate_alias');
    const mine = await createLink(admin, admin.ownerEmail);
    expectEnvelope(await call('PATCH', `${P}/links/${mine.link_id}`, { key: admin.key, body: { alias } }), 409, 'duplicate_alias');
    // concurrent creations of one alias: exactly one wins, the other is 409 (never 500)
    const raced = uniqueAlias('race');
    const results = await Promise.all([admin, foreign].map((c) => call('POST', `${P}/links`, { key: c.key, body: { owner_email: c.ownerEmail, alias: raced } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('answers OWNER_NOT_FOUND for an unknown owner and 404 not_found for foreign and unknown link ids', async () => {
    expectEnvelope(await call('POST', `${P}/links`, { key: admin.key, body: { owner_email: foreign.ownerEmail, alias: uniqueAlias() } }), 404, 'OWNER_NOT_FOUND');
    const theirs = await createLink(foreign, foreign.ownerEmail);
    for (const id of [theirs.link_id, newId(), 'not-a-uuid']) {
      expectEnvelope(await call('GET', `${P}/links/${id}`, { key: admin.key }), 404, 'not_found');
      expectEnvelope(await call('PATCH', `${P}/links/${id}`, { key: admin.key, body: { title: 'x' } }), 404, 'not_found');
      expectEnvelope(await call('DELETE', `${P}/links/${id}`, { key: admin.key }), 404, 'not_found');
      expectEnvelope(await call('GET', `${P}/links/${id}/meeting-types`, { key: admin.key }), 404, 'not_found');
      expectEnvelope(await call('POST', `${P}/links/${id}/meeting-types`, { key: admin.key, body: { slug: 'a', title: 'A', duration_minutes: [30], meeting_class: 'standard' } }), 404, 'not_found');
      expectEnvelope(await call('PATCH', `${P}/links/${id}/meeting-types/intro`, { key: admin.key, body: { title: 'x' } }), 404, 'not_found');
    }
    const list = await call('GET', `${P}/links`, { key: admin.key });
    expect(list.body.links.some((l: { link_id: string }) => l.link_id === theirs.link_id)).toBe(false);
  });

  it('requires manage_public_scheduling and keeps user-scoped agents to their own owner', async () => {
    const link = await createLink(admin, admin.ownerEmail);
    const weak = await newAgent(admin, ['read_availability']);
    expectEnvelope(await call('POST', `${P}/links`, { key: weak.key, body: { owner_email: admin.ownerEmail, alias: uniqueAlias() } }), 403, 'permission_denied:manage_public_scheduling');
    expectEnvelope(await call('GET', `${P}/links/${link.link_id}`, { key: weak.key }), 403, 'permission_denied:manage_public_scheduling');
    expectEnvelope(await call('GET', `${P}/domains`, { key: weak.key }), 403, 'permission_denied:manage_public_scheduling');

    const other = await addOwner(admin);
    const scoped = await newAgent(admin, ['manage_public_scheduling'], `user:${other}`);
    // owner_email omitted: the scoped agent's own owner
    const own = await call('POST', `${P}/links`, { key: scoped.key, body: { alias: uniqueAlias() } });
    expect(own.status).toBe(201);
    expect(own.body.owner_email).toBe(other);
    expectEnvelope(await call('POST', `${P}/links`, { key: scoped.key, body: { owner_email: admin.ownerEmail, alias: uniqueAlias() } }), 403, 'owner_scope_denied');
    expectEnvelope(await call('GET', `${P}/links/${link.link_id}`, { key: scoped.key }), 403, 'owner_scope_denied');
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}`, { key: scoped.key, body: { title: 'mine now' } }), 403, 'owner_scope_denied');
    expectEnvelope(await call('DELETE', `${P}/links/${link.link_id}`, { key: scoped.key }), 403, 'owner_scope_denied');
    expectEnvelope(await call('POST', `${P}/links/${link.link_id}/meeting-types`, { key: scoped.key, body: { slug: 'x', title: 'X', duration_minutes: [30], meeting_class: 'standard' } }), 403, 'owner_scope_denied');
    expectEnvelope(await call('GET', `${P}/links?owner_email=${encodeURIComponent(admin.ownerEmail)}`, { key: scoped.key }), 403, 'owner_scope_denied');
    const listed = await call('GET', `${P}/links`, { key: scoped.key });
    expect(listed.body.links.map((l: { owner_email: string }) => l.owner_email)).toEqual([other]);
    // customer-wide resources need an org:* agent
    expectEnvelope(await call('POST', `${P}/domains`, { key: scoped.key, body: { domain: 'scoped.example.com' } }), 403, 'owner_scope_denied');
    expectEnvelope(await call('POST', `${P}/requester-identities`, { key: scoped.key, body: { email: 'x@example.org' } }), 403, 'owner_scope_denied');
    expectEnvelope(await call('POST', `${P}/audiences`, { key: scoped.key, body: { name: 'x', members: [] } }), 403, 'owner_scope_denied');
  });
});

describe('public meeting types', () => {
  it('creates with defaults (201), reads, lists and patches any field', async () => {
    const link = await createLink(admin, admin.ownerEmail);
    const created = await call('POST', `${P}/links/${link.link_id}/meeting-types`, {
      key: admin.key,
      body: { slug: 'intro-call', title: 'Intro', duration_minutes: [45, 15, 30], meeting_class: 'standard' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      link_id: link.link_id,
      slug: 'intro-call',
      duration_minutes: [15, 30, 45],
      meeting_class: 'standard',
      attendee_limit: null,
      public_preempt_policy: 'inherit',
      effective_preempt_policy: 'preempt_lower',
      visibility: 'public',
      audience: null,
      enabled: true,
      published: true,
      credential_skips_verification: false,
      // Extensions (docs/public-scheduling.md "Meeting type details"): off and empty by default.
      description: null,
      location: null,
      min_notice_hours: 0,
      book_instantly: false,
    });
    expect((await call('GET', `${P}/links/${link.link_id}/meeting-types/intro-call`, { key: admin.key })).body).toEqual(created.body);

    const patched = await call('PATCH', `${P}/links/${link.link_id}/meeting-types/intro-call`, {
      key: admin.key,
      body: { slug: 'intro', title: 'Introduction', attendee_limit: 3, meeting_class: 'guarded', public_preempt_policy: 'never', visibility: 'unlisted', enabled: false, published: false, credential_skips_verification: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ slug: 'intro', title: 'Introduction', attendee_limit: 3, meeting_class: 'guarded', effective_preempt_policy: 'never', visibility: 'unlisted', enabled: false, published: false, credential_skips_verification: true });
    expectEnvelope(await call('GET', `${P}/links/${link.link_id}/meeting-types/intro-call`, { key: admin.key }), 404, 'not_found');

    await createType(admin, link.link_id, { slug: 'second' });
    const list = await call('GET', `${P}/links/${link.link_id}/meeting-types`, { key: admin.key });
    expect(list.body.meeting_types.map((t: { slug: string }) => t.slug)).toEqual(['intro', 'second']);
    expect(list.body.next_cursor).toBeNull();
  });

  it('refuses a duplicate slug (409), bad slugs and fields (400), unknown classes and looser policies', async () => {
    const link = await createLink(admin, admin.ownerEmail);
    await createType(admin, link.link_id, { slug: 'intro' });
    await createType(admin, link.link_id, { slug: 'other' });
    const post = (body: Record<string, unknown>) =>
      call('POST', `${P}/links/${link.link_id}/meeting-types`, { key: admin.key, body: { slug: 'fresh', title: 'T', duration_minutes: [30], meeting_class: 'standard', ...body } });
    expectEnvelope(await post({ slug: 'intro' }), 409, 'duplicate_public_meeting_type');
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/other`, { key: admin.key, body: { slug: 'intro' } }), 409, 'duplicate_public_meeting_type');
    // the same slug on another link is fine
    const link2 = await createLink(admin, admin.ownerEmail);
    await createType(admin, link2.link_id, { slug: 'intro' });

    for (const slug of ['Intro', 'intro_call', '-intro', 'intro-', 'a'.repeat(65), '']) expectEnvelope(await post({ slug }), 400, 'invalid_request');
    expectEnvelope(await post({ duration_minutes: [4] }), 400, 'invalid_request');
    expectEnvelope(await post({ duration_minutes: [481] }), 400, 'invalid_request');
    expectEnvelope(await post({ duration_minutes: [] }), 400, 'invalid_request');
    expectEnvelope(await post({ attendee_limit: 0 }), 400, 'invalid_request');
    expectEnvelope(await post({ attendee_limit: 51 }), 400, 'invalid_request');
    expectEnvelope(await post({ visibility: 'secret' }), 400, 'invalid_request');
    expectEnvelope(await post({ colour: 'red' }), 400, 'invalid_request');
    expectEnvelope(await post({ meeting_class: 'nope' }), 400, 'INVALID_MEETING_CLASS');
    expectEnvelope(await post({ meeting_class: 'guarded', public_preempt_policy: 'preempt_lower' }), 400, 'invalid_public_preempt_policy');
    // stricter or inherited policies are fine
    expect((await post({ slug: 'g1', meeting_class: 'guarded', public_preempt_policy: 'never' })).status).toBe(201);
    expect((await post({ slug: 'g2', meeting_class: 'guarded' })).body.effective_preempt_policy).toBe('never');
    expect((await post({ slug: 's1', public_preempt_policy: 'never' })).body.effective_preempt_policy).toBe('never');
    // patching into a looser combination is checked as a whole
    await post({ slug: 'p1', public_preempt_policy: 'preempt_lower' });
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/p1`, { key: admin.key, body: { meeting_class: 'guarded' } }), 400, 'invalid_public_preempt_policy');
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/g2`, { key: admin.key, body: { public_preempt_policy: 'preempt_lower' } }), 400, 'invalid_public_preempt_policy');
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/g2`, { key: admin.key, body: { meeting_class: 'nope' } }), 400, 'INVALID_MEETING_CLASS');
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/missing`, { key: admin.key, body: { title: 'x' } }), 404, 'not_found');
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/g2`, { key: admin.key, body: { colour: 'red' } }), 400, 'invalid_request');
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/g2`, { key: admin.key, body: { slug: 'Bad_Slug' } }), 400, 'invalid_request');
  });

  it('audience visibility needs an existing audience of the customer; audience with other visibility is 400', async () => {
    const link = await createLink(admin, admin.ownerEmail);
    const aud = await call('POST', `${P}/audiences`, { key: admin.key, body: { name: `partners-${newId().slice(-6)}`, members: [{ email: 'p@partner.example' }] } });
    expect(aud.status).toBe(201);
    const theirs = await call('POST', `${P}/audiences`, { key: foreign.key, body: { name: 'their-audience', members: [] } });
    expect(theirs.status).toBe(201);
    const post = (body: Record<string, unknown>) =>
      call('POST', `${P}/links/${link.link_id}/meeting-types`, { key: admin.key, body: { slug: 'vip', title: 'VIP', duration_minutes: [30], meeting_class: 'standard', ...body } });
    expectEnvelope(await post({ visibility: 'audience' }), 400, 'invalid_request');
    expectEnvelope(await post({ visibility: 'audience', audience: 'nobody' }), 404, 'not_found');
    expectEnvelope(await post({ visibility: 'audience', audience: 'their-audience' }), 404, 'not_found');
    expectEnvelope(await post({ visibility: 'public', audience: aud.body.name }), 400, 'invalid_request');
    expectEnvelope(await post({ audience: aud.body.name }), 400, 'invalid_request');
    const ok = await post({ visibility: 'audience', audience: aud.body.name });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ visibility: 'audience', audience: aud.body.name });
    // leaving audience visibility drops the audience; returning needs one again
    const pub = await call('PATCH', `${P}/links/${link.link_id}/meeting-types/vip`, { key: admin.key, body: { visibility: 'public' } });
    expect(pub.body).toMatchObject({ visibility: 'public', audience: null });
    expectEnvelope(await call('PATCH', `${P}/links/${link.link_id}/meeting-types/vip`, { key: admin.key, body: { visibility: 'audience' } }), 400, 'invalid_request');
    const back = await call('PATCH', `${P}/links/${link.link_id}/meeting-types/vip`, { key: admin.key, body: { visibility: 'audience', audience: aud.body.name } });
    expect(back.body.audience).toBe(aud.body.name);
    // an audience named by a meeting type cannot be deleted (it would widen who sees the type)
    expectEnvelope(await call('DELETE', `${P}/audiences/${aud.body.audience_id}`, { key: admin.key }), 409, 'audience_in_use');
  });
});
