import { createElement } from 'react';
import { ErrorMessage } from '@/components/layout/error-message';
import { useErrorWords } from '@/components/public/error-words';

/** The public error page's body as it shows once its code has loaded (app/(public-pages)/error.tsx loads it lazily). */
export function PublicErrorBody({ error }: { error: Error & { digest?: string } }) {
  return createElement(ErrorMessage, { error, reset: () => undefined, words: useErrorWords(error.digest) });
}
