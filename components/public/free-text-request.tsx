'use client';

import { useState } from 'react';
import { useTranslations } from 'next-intl';
import { Button } from '@/components/ui/button';
import { PenLine } from '@/components/ui/icons';
import { LazyRequestForm, preloadRequestForm } from './lazy-request-form';
import { Submitted, type SubmittedInfo } from './submitted';

/** A request in the requester's own words (no meeting type, no fixed time): the owner picks. The form opens on demand. */
export function FreeTextRequest({ link, ownerName }: { link: string; ownerName: string | null }) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<SubmittedInfo | null>(null);
  const t = useTranslations('form');
  if (done) return <Submitted info={done} ownerName={ownerName} />;
  if (!open) {
    return (
      <Button variant="secondary" className="self-start" onPointerEnter={preloadRequestForm} onFocus={preloadRequestForm} onClick={() => setOpen(true)}>
        <PenLine aria-hidden />
        {t('write')}
      </Button>
    );
  }
  return <LazyRequestForm link={link} attendeeLimit={null} onDone={setDone} focusFirst />;
}
