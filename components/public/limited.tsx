import { useTranslations } from 'next-intl';
import { Alert } from '@/components/ui/alert';

/** What a public page shows when its rate limit is reached. */
export function Limited() {
  const t = useTranslations('limited');
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
      <Alert tone="warn">{t('text')}</Alert>
    </div>
  );
}
