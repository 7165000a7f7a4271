import { describe, expect, it } from 'vitest';
import { proposalToReviewMessage } from '@/server/domain/email';

/** The owner's mail about a request names the language the requester used (docs/public-scheduling.md "Languages"). */
describe('the owner\'s review mail', () => {
  const m = { title: 'Intro call', ownerName: null, start: new Date('2026-12-02T13:30:00Z'), end: new Date('2026-12-02T14:00:00Z'), timeZone: 'Europe/Berlin', requester: 'Rhea' };
  it('says which language the requester used on the booking pages', () => {
    expect(proposalToReviewMessage('o@example.com', { ...m, requesterLocale: 'de' }, 'https://x/r').text).toContain('They used the booking page in German.');
    expect(proposalToReviewMessage('o@example.com', { ...m, requesterLocale: 'pt-BR' }, 'https://x/r').text).toContain('in Brazilian Portuguese.');
    expect(proposalToReviewMessage('o@example.com', { ...m, requesterLocale: 'ar' }, 'https://x/r').text).toContain('in Arabic.');
  });
  it('says nothing of a language for a request through the API', () => {
    expect(proposalToReviewMessage('o@example.com', { ...m, requesterLocale: null }, 'https://x/r').text).not.toContain('They used');
    expect(proposalToReviewMessage('o@example.com', m, 'https://x/r').text).not.toContain('They used');
  });
});
