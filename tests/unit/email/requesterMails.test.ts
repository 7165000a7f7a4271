import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { invitationMail, requesterInvitationIcs } from '@/server/domain/calendars/invitationMail';
import { contactVerificationMessage, moveOutcomeMessage, proposalOutcomeMessage, reminderMessage } from '@/server/domain/email';

/**
 * A requester's mails and invitation in the language of their request (docs/public-scheduling.md
 * "Languages"): the catalogue's words, the times written by Intl in that language and zone; Arabic
 * right to left; English as it always read.
 */
const m = { title: 'Intro call', ownerName: 'Bea Berlin', start: new Date('2026-12-02T13:30:00Z'), end: new Date('2026-12-02T14:00:00Z'), timeZone: 'Europe/Berlin' };
const urls = { verificationUrl: 'https://x.test/v', statusUrl: 'https://x.test/s' };
const de = new Intl.DateTimeFormat('de', { timeZone: 'Europe/Berlin', weekday: 'long', day: 'numeric', month: 'long' }).format(m.start);
const invite = {
  method: 'REQUEST' as const,
  uid: 'u1@agent-scheduler',
  sequence: 0,
  organizer: { email: 'bea@example.com', name: 'Bea Berlin' },
  attendees: [{ email: 'rhea@example.com' }],
  start: m.start,
  end: m.end,
  title: 'Intro call',
  location: 'Room 1',
  now: new Date('2026-11-30T10:00:00Z'),
};

describe('a German requester', () => {
  it('gets the verification mail in German, the time written by Intl in German', () => {
    const mail = contactVerificationMessage('rhea@example.com', m, urls, 'de');
    expect(de).toBe('Mittwoch, 2. Dezember');
    expect(mail.subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse, um Ihre Terminanfrage zu senden');
    expect(mail.text).toContain(`Sie haben „Intro call“ mit Bea Berlin am ${de} 2026, 14:30–15:00`);
    expect(mail.text).toContain('(Europe/Berlin) angefragt.');
    expect(mail.text).toContain('(der Link ist 24 Stunden gültig):\nhttps://x.test/v\n');
    expect(mail.text).not.toMatch(/\b(?:You|the|your|link is)\b/);
    expect(mail.html).toMatch(/<html lang="de" dir="ltr">/);
  });

  it('gets the booked and moved mails in German', () => {
    const booked = proposalOutcomeMessage('rhea@example.com', m, { status: 'booked', location: 'Room 1' }, 'de');
    expect(booked.subject).toBe('Ihre Terminanfrage wurde angenommen');
    expect(booked.text).toContain(`Ihre Anfrage für „Intro call“ mit Bea Berlin am ${de} 2026, 14:30–15:00`);
    expect(booked.text).toContain('wurde angenommen und gebucht.\n\nOrt: Room 1\n');
    expect(booked.text).toContain('„Zum Kalender hinzufügen“ und „Diesen Termin absagen“');
    const moved = moveOutcomeMessage('rhea@example.com', m, { status: 'booked', from: { start: new Date('2026-12-01T09:00:00Z'), end: new Date('2026-12-01T09:30:00Z') } }, 'de');
    expect(moved.subject).toBe('Ihr Termin wurde verschoben');
    expect(moved.text).toContain('Bisher: Dienstag, 1. Dezember 2026, 10:00–10:30');
  });

  it('gets reminders with German plurals', () => {
    const at = (offsetMinutes: number) => reminderMessage('rhea@example.com', { ...m, start: m.start, end: m.end, offsetMinutes }, 'de').subject;
    expect(at(60)).toBe('Erinnerung: Intro call in 1 Stunde');
    expect(at(30)).toBe('Erinnerung: Intro call in 30 Minuten');
    expect(at(3 * 1440 + 120)).toBe('Erinnerung: Intro call in 3 Tagen, 2 Stunden');
  });

  it('gets the invitation in German: the mail, and the ICS SUMMARY and DESCRIPTION', () => {
    const ics = requesterInvitationIcs(invite, 'Europe/Berlin', 'de');
    const mail = invitationMail(invite, 'rhea@example.com', 'Europe/Berlin', ics, 'de');
    expect(mail.subject).toBe('Einladung: Intro call');
    expect(mail.text).toContain('Sie wurden von Bea Berlin (bea@example.com) eingeladen: Intro call');
    expect(mail.text).toContain(`Wann: ${de} 2026, 14:30–15:00`);
    const ev = new ICAL.Component(ICAL.parse(mail.icalEvent!.content)).getFirstSubcomponent('vevent')!;
    expect(ev.getFirstPropertyValue('summary')).toBe('Intro call mit Bea Berlin');
    expect(ev.getFirstPropertyValue('description')).toMatch(new RegExp(`^${de} 2026, 14:30–15:00 .*\\(Europe/Berlin\\)\\. Der Statuslink`));
    expect(ev.getFirstPropertyValue('uid')).toBe('u1@agent-scheduler');
    const cancel = requesterInvitationIcs({ ...invite, method: 'CANCEL', title: 'Meeting' }, 'Europe/Berlin', 'de');
    const cev = new ICAL.Component(ICAL.parse(cancel)).getFirstSubcomponent('vevent')!;
    expect(cev.getFirstPropertyValue('summary')).toBe('Termin mit Bea Berlin');
    expect(cev.getFirstPropertyValue('description')).toMatch(/^Dieser Termin wurde abgesagt: /);
  });
  it("gets a series' one invitation in German (how often, from when to when) and the series' cancel, the ICS the series' own (RRULE, TZID)", () => {
    const series = { timeZone: 'Europe/Berlin', span: { from: m.start.getTime(), to: new Date('2027-01-06T14:00:00Z').getTime() }, rrule: 'FREQ=WEEKLY;COUNT=6', occurrences: { count: 6, last: new Date('2027-01-06T13:30:00Z') } };
    const i = { ...invite, series };
    const mail = invitationMail(i, 'rhea@example.com', 'Europe/Berlin', requesterInvitationIcs(i, 'Europe/Berlin', 'de'), 'de');
    expect(mail.subject).toBe('Einladung: Intro call');
    expect(mail.text).toContain('Wiederholung: 6 Termine, vom 02.12.2026 bis 06.01.2027.');
    const ev = new ICAL.Component(ICAL.parse(mail.icalEvent!.content)).getFirstSubcomponent('vevent')!;
    expect(String(ev.getFirstPropertyValue('rrule'))).toBe('FREQ=WEEKLY;COUNT=6');
    expect(ev.getFirstProperty('dtstart')!.getParameter('tzid')).toBe('Europe/Berlin');
    expect(ev.getFirstPropertyValue('summary')).toBe('Intro call mit Bea Berlin');
    const all = invitationMail({ ...i, method: 'CANCEL' }, 'rhea@example.com', 'Europe/Berlin', undefined, 'de');
    expect(all.subject).toBe('Abgesagt: Intro call');
    expect(all.text).toContain('Die ganze Serie wurde abgesagt: Intro call.');
    const one = invitationMail({ ...i, method: 'CANCEL', series: { ...series, rrule: undefined, recurrenceId: m.start } }, 'rhea@example.com', 'Europe/Berlin', undefined, 'de');
    expect(one.text).not.toContain('Serie');
    expect(one.text).toContain(`${de} 2026, 14:30–15:00`);
  });
});

describe('a Japanese requester', () => {
  it('gets the booked mail and invitation in Japanese, times written by Intl in Japanese', () => {
    const tokyo = { ...m, timeZone: 'Asia/Tokyo' };
    const booked = proposalOutcomeMessage('rhea@example.com', tokyo, { status: 'booked' }, 'ja');
    expect(booked.subject).toBe('ミーティングのリクエストが承認されました');
    expect(booked.text).toContain('22時30分～23時00分');
    expect(booked.text).toContain('Bea Berlinさんとの「Intro call」のリクエストが承認され、予約されました。');
    const verify = contactVerificationMessage('rhea@example.com', tokyo, urls, 'ja');
    expect(verify.text).toContain('（リンクの有効期限は24時間です）');
    const ics = new ICAL.Component(ICAL.parse(requesterInvitationIcs(invite, 'Asia/Tokyo', 'ja'))).getFirstSubcomponent('vevent')!;
    expect(ics.getFirstPropertyValue('summary')).toBe('Bea BerlinさんとのIntro call');
    expect(ics.getFirstPropertyValue('description')).toContain('22時30分～23時00分');
  });
});

describe('an Arabic requester', () => {
  it('gets an HTML body written right to left, in Arabic', () => {
    const mail = contactVerificationMessage('rhea@example.com', m, urls, 'ar');
    expect(mail.subject).toBe('أكّد بريدك الإلكتروني لإرسال طلب الاجتماع');
    expect(mail.html).toContain('<html lang="ar" dir="rtl">');
    expect(mail.html).toContain('<body lang="ar" dir="rtl">');
    expect(mail.html).toContain('<a href="https://x.test/v" dir="ltr">https://x.test/v</a>');
    expect(mail.text).toContain('الأربعاء');
    const at = (offsetMinutes: number) => reminderMessage('r@example.com', { ...m, start: m.start, end: m.end, offsetMinutes }, 'ar').subject;
    expect(at(120)).toBe('تذكير: Intro call بعد ساعتين');
    expect(at(180)).toBe('تذكير: Intro call بعد 3 ساعات');
  });
});

describe('English (no language stored, or en)', () => {
  it('reads as it always did, with no HTML part', () => {
    const mail = contactVerificationMessage('rhea@example.com', m, urls);
    expect(mail).toEqual({
      to: 'rhea@example.com',
      subject: 'Confirm your email to send your meeting request',
      text: [
        'You asked for "Intro call" with Bea Berlin on Wednesday, December 2, 2026, 2:30 – 3:00 PM GMT+1 (Europe/Berlin).',
        '',
        'Open this link and press "Confirm" so the request reaches the calendar owner (the link is valid for 24 hours):',
        'https://x.test/v',
        '',
        'Keep this link to check the status of your request or to withdraw it:',
        'https://x.test/s',
        '',
        'If you did not ask for this meeting, ignore this message; nothing will be sent on.',
      ].join('\n'),
    });
    expect(contactVerificationMessage('rhea@example.com', m, urls, 'en')).toEqual(mail);
    expect(proposalOutcomeMessage('r@example.com', { ...m, title: null, ownerName: null }, { status: 'declined', reason: 'Busy' }).text).toBe(
      'Your request for a meeting on Wednesday, December 2, 2026, 2:30 – 3:00 PM GMT+1 (Europe/Berlin) was declined.\n\nReason given: Busy\n\nThe status link from your first message now shows "declined".',
    );
    const at = (offsetMinutes: number) => reminderMessage('r@example.com', { ...m, start: m.start, end: m.end, offsetMinutes }).subject;
    expect([at(30), at(60), at(1440), at(3 * 1440 + 150)]).toEqual(['Reminder: Intro call in 30 minutes', 'Reminder: Intro call in 1 hour', 'Reminder: Intro call in 24 hours', 'Reminder: Intro call in 3 days 2 hours 30 minutes']);
    const inv = invitationMail(invite, 'rhea@example.com', 'Europe/Berlin');
    expect(inv.subject).toBe('Invitation: Intro call');
    expect(inv.text).toBe('You are invited by Bea Berlin (bea@example.com): Intro call\nWhen: Wednesday, December 2, 2026, 2:30 – 3:00 PM GMT+1 (Europe/Berlin)\nWhere: Room 1\n\nThe attached invitation adds it to your calendar.');
    expect(inv.html).toBeUndefined();
  });
});
