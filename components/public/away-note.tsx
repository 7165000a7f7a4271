import { useLocale, useTranslations } from 'next-intl';
import { Alert } from '@/components/ui/alert';
import { formatCalendarDate } from '@/components/ui/time-format';

/** What the server says about an owner who is away (docs/public-scheduling.md "Away"). */
export type AwayNoteData = { owner_name: string | null; away_until: string; back_at: string };

/** Where a page sends requesters while the link's owner is away: the colleague's link page, naming where they came from. */
export function awayRedirectPath(toAlias: string, fromAlias: string): string {
  return `/${encodeURIComponent(toAlias)}?away_from=${encodeURIComponent(fromAlias)}`;
}

/** The note on a colleague's link page: who is away and until when. */
export function AwayNote({ note, colleague }: { note: AwayNoteData; colleague: string | null }) {
  const t = useTranslations('away');
  const until = formatCalendarDate(note.away_until, useLocale());
  return (
    <Alert tone="info" data-testid="away-note">
      <strong>{note.owner_name ? t('away', { owner: note.owner_name, until }) : t('awayAnon', { until })}</strong> {colleague ? t('colleague', { colleague }) : t('colleagueAnon')}
    </Alert>
  );
}
