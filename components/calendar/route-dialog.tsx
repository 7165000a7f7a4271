'use client';

import { useRouter } from 'next/navigation';
import type { ReactNode } from 'react';
import { Dialog, DialogContent } from '@/components/ui/dialog';

/** A dialog opened by the URL (e.g. ?booking=...): closing it goes to `closeHref`. */
export function RouteDialog({ title, closeHref, children }: { title: string; closeHref: string; children: ReactNode }) {
  const router = useRouter();
  return (
    <Dialog open onOpenChange={(open) => !open && router.push(closeHref, { scroll: false })}>
      <DialogContent title={title}>{children}</DialogContent>
    </Dialog>
  );
}
