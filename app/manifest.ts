import type { MetadataRoute } from 'next';

/** The web app manifest: the product's name and its icons from public/ (docs/dashboard.md "Name and icon"). */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: 'Agent Scheduler',
    short_name: 'Agent Scheduler',
    start_url: '/dashboard',
    display: 'standalone',
    background_color: '#f7f7f5',
    theme_color: '#2f5bd3',
    icons: [
      { src: '/icon.svg', type: 'image/svg+xml', sizes: 'any' },
      { src: '/icon-192.png', type: 'image/png', sizes: '192x192' },
      { src: '/icon-512.png', type: 'image/png', sizes: '512x512' },
    ],
  };
}
