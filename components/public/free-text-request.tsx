'use client';

import { useState } from 'react';
import { RequestForm, Submitted, type SubmittedInfo } from './request-form';

/** A request in the requester's own words (no meeting type, no fixed time): the owner picks. */
export function FreeTextRequest({ link, ownerName }: { link: string; ownerName: string | null }) {
  const [done, setDone] = useState<SubmittedInfo | null>(null);
  if (done) return <Submitted info={done} ownerName={ownerName} />;
  return <RequestForm link={link} attendeeLimit={50} onDone={setDone} />;
}
