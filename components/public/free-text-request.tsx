'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { PenLine } from './icons';
import { LazyRequestForm, preloadRequestForm } from './lazy-request-form';
import { Submitted, type SubmittedInfo } from './submitted';

/** A request in the requester's own words (no meeting type, no fixed time): the owner picks. The form opens on demand. */
export function FreeTextRequest({ link, ownerName }: { link: string; ownerName: string | null }) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<SubmittedInfo | null>(null);
  if (done) return <Submitted info={done} ownerName={ownerName} />;
  if (!open) {
    return (
      <Button variant="secondary" className="self-start" onPointerEnter={preloadRequestForm} onFocus={preloadRequestForm} onClick={() => setOpen(true)}>
        <PenLine aria-hidden />
        Write a request
      </Button>
    );
  }
  return <LazyRequestForm link={link} attendeeLimit={null} onDone={setDone} focusFirst />;
}
