import { headers } from 'next/headers';
import { getConfig } from '@/server/config';
import type { PublicMeetingTypePage } from '@/server/domain/publicScheduling/requester';
import { publicBaseUrl } from '@/server/request';

/**
 * Structured data for a meeting type's page (docs/public-scheduling.md "For agents"): a schema.org
 * Service by its host(s), one Offer per length, and a ReserveAction at the page. Only what the page
 * shows: title, description, durations, the hosts' display names, the attendee limit.
 */
export function meetingTypeJsonLd(type: PublicMeetingTypePage, pageUrl: string): Record<string, unknown> {
  return {
    '@context': 'https://schema.org',
    '@type': 'Service',
    name: type.title,
    ...(type.description ? { description: type.description } : {}),
    url: pageUrl,
    serviceType: 'Meeting',
    ...(type.owner_name ? { provider: { '@type': 'Person', name: type.owner_name } } : {}),
    offers: type.duration_minutes.map((m) => ({
      '@type': 'Offer',
      name: `${type.title}, ${m} minutes`,
      url: pageUrl,
      price: 0,
      eligibleDuration: { '@type': 'QuantitativeValue', value: m, unitCode: 'MIN' },
      ...(type.attendee_limit !== null ? { eligibleQuantity: { '@type': 'QuantitativeValue', maxValue: type.attendee_limit, unitText: 'people' } } : {}),
    })),
    potentialAction: { '@type': 'ReserveAction', target: { '@type': 'EntryPoint', urlTemplate: pageUrl, actionPlatform: 'https://schema.org/DesktopWebPlatform' } },
  };
}

/** JSON inside a script element: `<` escaped, so no text can close the element. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export async function MeetingTypeJsonLd({ alias, type }: { alias: string; type: PublicMeetingTypePage }) {
  const h = await headers();
  // The request's policy nonce (proxy.ts): a data block runs nothing, but every script element of a page carries it.
  const nonce = /'nonce-([^']+)'/.exec(h.get('content-security-policy') ?? '')?.[1];
  const base = publicBaseUrl(new Request('http://localhost/', { headers: h }), getConfig().publicBaseUrl);
  const pageUrl = `${base}/${encodeURIComponent(alias.toLowerCase())}/${type.slug}`;
  return <script type="application/ld+json" nonce={nonce} dangerouslySetInnerHTML={{ __html: scriptJson(meetingTypeJsonLd(type, pageUrl)) }} />;
}
