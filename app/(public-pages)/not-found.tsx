import type { Metadata } from 'next';
import { MessagePage } from '@/components/layout/message-page';
import { REQUESTER_DESCRIPTION } from '@/components/public/limited';

export const metadata: Metadata = { title: 'Page not found', description: REQUESTER_DESCRIPTION, robots: { index: false, follow: false } };

/**
 * A booking page, meeting type or status link that does not exist (or that
 * this requester may not see: the same answer). Requesters arrive from a link
 * someone gave them, so this page links to nothing of the service (no
 * dashboard, no agent guide): it says what to do instead.
 */
export default function PublicNotFound() {
  return (
    <MessagePage label="404" title="This page does not exist">
      <p>The link may be mistyped, or the page may have been removed.</p>
      <p className="text-sm text-muted">Check that you opened the whole link you were sent, or ask the person who shared it for a new one.</p>
    </MessagePage>
  );
}
