import { headers } from 'next/headers';
import { EmbedBridge } from '@/components/public/embed-bridge';
import { EMBED_DOMAINS_HEADER } from '@/server/http/embedHeader';

/**
 * On the pages a customer's site may frame (proxy.ts named its verified domains in the request),
 * the client bridge to the host page; nothing on any other page (docs/public-scheduling.md "Embedding").
 */
export async function EmbedSlot() {
  const domains = (await headers()).get(EMBED_DOMAINS_HEADER);
  return domains === null ? null : <EmbedBridge domains={domains} />;
}
