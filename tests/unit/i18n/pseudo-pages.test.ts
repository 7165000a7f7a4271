import { createElement, type ComponentProps, type ReactElement, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { NextIntlClientProvider } from 'next-intl';
import en from '@/messages/en/public.json';
import { pseudoTree } from './catalogue';

/**
 * The pseudo-locale run (docs/public-scheduling.md "Languages"): every requester page and
 * component rendered with a catalogue whose every letter is accented (tests/unit/i18n/catalogue.ts
 * pseudoMessage) and Japanese dates. Whatever plain ASCII word is left in the HTML, its text or
 * its accessible names, was written in the code rather than the catalogue. Data the pages show
 * (names, titles) is written without ASCII letters here; the product's name, the languages' own
 * names and the zones' ids (<option>s) are not text to translate.
 */
const PSEUDO = pseudoTree(en);
const LOCALE = 'ja';
const ZONE = 'Asia/Tokyo';

vi.mock('next/navigation', () => ({
  usePathname: () => '/ŝàɱ',
  useRouter: () => ({ refresh: () => undefined }),
  redirect: () => {
    throw new Error('redirect');
  },
  notFound: () => {
    throw new Error('notFound');
  },
}));
vi.mock('next-intl/server', async () => {
  const intl = await import('next-intl');
  const { pseudoTree: pseudo } = await import('./catalogue');
  const messages = pseudo((await import('@/messages/en/public.json')).default);
  return {
    getTranslations: async (namespace: string) => intl.createTranslator({ locale: 'ja', messages, namespace: namespace as never }),
    getFormatter: async () => intl.createFormatter({ locale: 'ja', timeZone: 'Asia/Tokyo' }),
    getMessages: async () => messages,
    getLocale: async () => 'ja',
  };
});
vi.mock('@/components/public/time-zone', () => ({ useTimeZone: () => ['Asia/Tokyo', () => undefined], currentTimeZone: () => 'Asia/Tokyo' }));

const OWNER = 'Ŕĥéà Ŏŵñéŕ';
const TITLE = 'Ĩñŧŕö';
const SLOTS = [
  { start: '2026-12-02T01:00:00.000Z', end: '2026-12-02T01:30:00.000Z' },
  { start: '2026-12-02T02:00:00.000Z', end: '2026-12-02T02:30:00.000Z' },
];
const schedule = {
  title: null,
  owner_name: OWNER,
  meeting_types: [{ slug: 'intro', title: TITLE, duration_minutes: [30, 60] }],
  has_credential: true,
  credential_rejected: true,
  away_note: { owner_name: OWNER, away_until: '2026-12-04', back_at: '2026-12-05T08:00:00Z' },
  redirect_to: null,
};
const meetingType = { slug: 'intro', title: TITLE, owner_name: OWNER, attendee_limit: 3, description: 'Ďéšç', books_instantly: false, several_hosts: false, duration_minutes: [30, 60], suggested_times: SLOTS };
const view = (over: Record<string, unknown>) => ({
  status: 'booked',
  updated_at: '2026-11-29T10:00:00Z',
  title: TITLE,
  owner_name: OWNER,
  start: SLOTS[0].start,
  end: SLOTS[0].end,
  withdrawable: false,
  decline_reason: null,
  location: 'Ŕööɱ 4',
  video: { provider: 'jitsi', status: 'pending', join_url: null, error: null },
  cancellable: true,
  meeting_cancelled: false,
  movable: true,
  move_request: null,
  books_instantly: false,
  ...over,
});
let caller: Record<string, unknown> = {};
// Structured data reads the request's headers and is no visible text (tests/integration/public/agents-embed.test.ts covers it).
vi.mock('@/app/(public-pages)/[alias]/[slug]/json-ld', () => ({ MeetingTypeJsonLd: () => null }));
vi.mock('@/server/trpc/caller', () => ({ serverTrpc: async () => ({ requester: caller }) }));

function html(node: ReactNode): string {
  const props = { locale: LOCALE, messages: PSEUDO, timeZone: ZONE } as ComponentProps<typeof NextIntlClientProvider>;
  return renderToString(createElement(NextIntlClientProvider, props, node));
}

/** Plain ASCII words left in a page: its text and its accessible names, without the allowed data. */
function plainWords(markup: string): string[] {
  const attrs = [...markup.matchAll(/\s(?:aria-label|title|placeholder|alt)="([^"]*)"/g)].map((m) => m[1]);
  const text = markup
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<option[\s\S]*?<\/option>/g, ' ')
    .replace(/<[^>]+>/g, ' ');
  return [text, ...attrs]
    .join(' ')
    .replace(/&[a-z]+;|&#x?[0-9a-f]+;/gi, ' ')
    .replace(/Agent Scheduler/g, ' ')
    .match(/[A-Za-z]{2,}/g) ?? [];
}

const render = async (make: () => ReactElement | Promise<ReactElement>) => plainWords(html(await make()));

describe('pseudo-locale: no hard-coded text on the requester pages', { timeout: 60_000 }, () => {
  it('finds a hard-coded word when there is one', () => {
    expect(plainWords(html(createElement('p', null, 'Hello ', createElement('span', { 'aria-label': 'Close' }, '×'))))).toEqual(['Hello', 'Close']);
  });

  it('the link page, its metadata, and a link page with nothing to book', async () => {
    const page = await import('@/app/(public-pages)/[alias]/page');
    const props = { params: Promise.resolve({ alias: 'ŝàɱ' }), searchParams: Promise.resolve({}) };
    caller = { schedule: async () => schedule };
    expect(await render(() => page.default(props))).toEqual([]);
    const meta = await page.generateMetadata(props);
    expect(plainWords(`${String(meta.title)} ${meta.description}`)).toEqual([]);
    caller = { schedule: async () => ({ ...schedule, owner_name: null, meeting_types: [], has_credential: false, credential_rejected: false, away_note: { ...schedule.away_note, owner_name: null } }) };
    expect(await render(() => page.default(props))).toEqual([]);
    caller = { schedule: async () => ({ ...schedule, has_credential: true, credential_rejected: false }) };
    expect(await render(() => page.default(props))).toEqual([]);
  });

  it('the meeting type page with its times, in every "what happens next" wording', async () => {
    const page = await import('@/app/(public-pages)/[alias]/[slug]/page');
    const props = { params: Promise.resolve({ alias: 'ŝàɱ', slug: 'intro' }) };
    for (const over of [{}, { books_instantly: true }, { several_hosts: true, owner_name: null, attendee_limit: 1 }]) {
      caller = { meetingType: async () => ({ ...meetingType, ...over }) };
      const words = await render(() => page.default(props));
      expect(words).toEqual([]);
      const meta = await page.generateMetadata(props);
      expect(plainWords(`${String(meta.title)} ${meta.description}`)).toEqual([]);
    }
  });

  it('the status page in every state, with its actions, move notes and withdraw control', async () => {
    const page = await import('@/app/(public-pages)/status/[token]/page');
    const views = [
      view({ status: 'pending_requester_verification', cancellable: false, withdrawable: true, video: null, location: null }),
      view({ status: 'pending_review', owner_name: null, cancellable: false, withdrawable: true, start: null, end: null }),
      view({ status: 'booked', move_request: { status: 'pending_review', start: SLOTS[1].start, end: SLOTS[1].end, decline_reason: null, updated_at: '2026-11-29T10:00:00Z' } }),
      view({ status: 'booked', video: { provider: 'jitsi', status: 'failed', join_url: null, error: null }, move_request: { status: 'declined', start: SLOTS[1].start, end: SLOTS[1].end, decline_reason: 'Ñö', updated_at: '2026-11-29T10:00:00Z' } }),
      view({ status: 'booked', books_instantly: true, move_request: { status: 'booked', start: SLOTS[1].start, end: SLOTS[1].end, decline_reason: null, updated_at: '2026-11-29T10:00:00Z' } }),
      view({ status: 'booked', meeting_cancelled: true, cancellable: false }),
      view({ status: 'declined', decline_reason: 'Ñö', cancellable: false }),
      view({ status: 'withdrawn', cancellable: false }),
      view({ status: 'cancelled', cancellable: false }),
      view({ status: 'expired', cancellable: false, books_instantly: true }),
    ];
    for (const v of views) {
      caller = { status: async () => v };
      expect(await render(() => page.default({ params: Promise.resolve({ token: 'ŧ' }) })), v.status as string).toEqual([]);
    }
    const meta = await page.generateMetadata();
    expect(plainWords(`${String(meta.title)} ${meta.description}`)).toEqual([]);
  });

  it('the steps after a click: the request forms, the next step, the cancel and move forms, the time list states', async () => {
    const { RequestForm } = await import('@/components/public/request-form');
    const { Submitted } = await import('@/components/public/submitted');
    const { CancelMeetingForm } = await import('@/components/public/cancel-meeting-form');
    const { MoveRequestForm } = await import('@/components/public/move-request-form');
    const { TimeList } = await import('@/components/public/time-grid');
    const { MonthView } = await import('@/components/public/month-view');
    const noop = () => undefined;
    const cases: ReactElement[] = [
      createElement(RequestForm, { link: 'ŝ', attendeeLimit: 3, structured: { slug: 'intro', duration: 30, slot: SLOTS[0] }, onDone: noop }),
      createElement(RequestForm, { link: 'ŝ', attendeeLimit: null, onDone: noop }),
      createElement(Submitted, { info: { email: 'ŕ@é.ẋ', statusUrl: '/ŝ' }, ownerName: OWNER }),
      createElement(Submitted, { info: { email: 'ŕ@é.ẋ', statusUrl: '/ŝ' }, ownerName: null, booksInstantly: true }),
      createElement(CancelMeetingForm, { token: 'ŧ', owner: OWNER, onDone: noop, onKeep: noop }),
      createElement(CancelMeetingForm, { token: 'ŧ', owner: null, onDone: noop, onKeep: noop }),
      createElement(MoveRequestForm, { token: 'ŧ', owner: OWNER, tz: ZONE, onDone: noop, onKeep: noop }),
      createElement(TimeList, { tz: ZONE, loading: false, failed: true, slots: [], selected: null, onSelect: noop, link: 'ŝ' }),
      createElement(TimeList, { tz: ZONE, loading: false, failed: false, slots: [], selected: null, onSelect: noop, link: 'ŝ' }),
      createElement(TimeList, { tz: null, loading: true, failed: false, slots: [], selected: null, onSelect: noop, link: 'ŝ' }),
      createElement(MonthView, { month: '2026-12', firstMonth: '2026-11', lastMonth: '2027-02', counts: new Map([['2026-12-02', 2]]), selected: '2026-12-02', onMonth: noop, onPick: noop }),
      createElement(MonthView, { month: '2026-12', firstMonth: '2026-12', lastMonth: '2026-12', counts: null, selected: null, onMonth: noop, onPick: noop }),
    ];
    for (const c of cases) expect(plainWords(html(c))).toEqual([]);
  });

  it('the error and not-found pages, and the rate-limit page', async () => {
    const PublicError = (await import('@/app/(public-pages)/error')).default;
    const PublicNotFound = (await import('@/app/(public-pages)/not-found')).default;
    const RootNotFound = (await import('@/app/not-found')).default;
    const { Limited } = await import('@/components/public/limited');
    const { PublicErrorBody } = await import('./pseudo-helpers');
    const error = Object.assign(new Error('x'), { digest: '123' });
    expect(plainWords(html(createElement(PublicError, { error, reset: () => undefined })))).toEqual([]);
    expect(plainWords(html(createElement(PublicErrorBody, { error })))).toEqual([]);
    expect(await render(() => PublicNotFound())).toEqual([]);
    expect(await render(() => RootNotFound())).toEqual([]);
    expect(plainWords(html(createElement(Limited)))).toEqual([]);
  });
});
