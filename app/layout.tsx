import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { NuqsAdapter } from 'nuqs/adapters/next/app';
import type { ReactNode } from 'react';
import { ThemeToggle } from '@/components/ui/theme-toggle';
import { scriptNonce } from '@/lib/server/csp';
import { geistMono, geistSans } from './fonts';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'callscope', template: '%s · callscope' },
  description: 'What your model actually did: NeMo Gym model-call capture, browsable.',
  icons: { icon: [{ url: '/icon.svg', type: 'image/svg+xml' }, { url: '/favicon.ico', sizes: '16x16 32x32' }] },
};

// Every page, the not-found page too, is rendered per request: a page prerendered at build time could not
// carry the script nonce of the response it is sent in (lib/server/csp.ts), and its scripts would not run.
export const dynamic = 'force-dynamic';

// Applies a saved theme before paint, so dark mode never flashes light.
const THEME_SCRIPT = `try{var t=localStorage.getItem('callscope-theme');if(t)document.documentElement.classList.add(t)}catch(e){}`;

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Under `next dev` there is no serve layer, no policy and so no nonce: the script runs without one.
  const nonce = scriptNonce((await headers()).get('content-security-policy'));
  return (
    <html lang="en" className={`${geistSans.variable} ${geistMono.variable}`} suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen">
        <NuqsAdapter>
          <header className="flex items-center gap-6 border-b border-line bg-panel px-6 py-3">
            <a href="/" className="font-bold text-fg no-underline">
              callscope
            </a>
            <nav aria-label="main" className="flex gap-4 text-sm text-muted">
              <a href="/" className="hover:text-fg">
                Runs
              </a>
            </nav>
            <div className="ml-auto">
              <ThemeToggle />
            </div>
          </header>
          <main className="mx-auto max-w-[1400px] px-6 py-5">{children}</main>
        </NuqsAdapter>
      </body>
    </html>
  );
}
