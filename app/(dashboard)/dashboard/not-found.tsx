import type { Metadata } from 'next';
import Link from 'next/link';
import { MessagePage } from '@/components/layout/message-page';
import { buttonClasses } from '@/components/ui/button-classes';

export const metadata: Metadata = { title: 'Not found' };

/** A dashboard page whose object does not exist (a proposal, an agent): inside the dashboard's frame, back to the inbox. */
export default function DashboardNotFound() {
  return (
    <MessagePage
      label="404"
      title="Not found"
      actions={
        <Link href="/dashboard" className={buttonClasses('primary')}>
          Back to the inbox
        </Link>
      }
    >
      <p>This item does not exist, or it belongs to another account.</p>
    </MessagePage>
  );
}
