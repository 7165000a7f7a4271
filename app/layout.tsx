import type { Metadata, Viewport } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { getLocale } from 'next-intl/server';
import { direction } from '@/i18n/locales';
import './globals.css';

/** The product's one name (README); its icon from public/ as favicon and app icon (docs/dashboard.md "Name and icon"). */
const PRODUCT_NAME = 'Agent Scheduler';

export const metadata: Metadata = {
  title: PRODUCT_NAME,
  applicationName: PRODUCT_NAME,
  icons: {
    icon: [
      { url: '/icon.svg', type: 'image/svg+xml' },
      { url: '/favicon-32.png', type: 'image/png', sizes: '32x32' },
    ],
    apple: [{ url: '/apple-touch-icon.png', sizes: '180x180' }],
  },
  manifest: '/manifest.webmanifest',
  description:
    'A scheduling API for software agents: availability, holds and bookings on calendar owners’ calendars, with priority-based arbitration and public booking proposals.',
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

/**
 * The root layout carries no client providers: the dashboard's layout and the
 * landing page's status line wrap themselves in <Providers> (tRPC + TanStack
 * Query); the public pages use the lighter vanilla client (components/public/api.ts).
 *
 * Every page is rendered per request: its scripts carry the nonce of the
 * request's Content-Security-Policy (proxy.ts), which a page built ahead of
 * time could not know (docs/reliability.md "Headers").
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  // English but on a requester page, which is in the language proxy.ts chose (docs/public-scheduling.md "Languages").
  const locale = await getLocale();
  return (
    <html lang={locale} dir={direction(locale)}>
      <body className="min-h-dvh bg-bg text-fg antialiased">
        {children}
      </body>
    </html>
  );
}
