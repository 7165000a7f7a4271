import type { ReactNode } from 'react';
import { PublicShell } from '@/components/layout/public-shell';

/** Pages for people without an account: requesters' booking pages and the owners' sign-in page. */
export default function PublicLayout({ children }: { children: ReactNode }) {
  return <PublicShell>{children}</PublicShell>;
}
