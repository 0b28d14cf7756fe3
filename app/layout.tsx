import type { Metadata } from 'next';
import { NuqsAdapter } from 'nuqs/adapters/next/app';
import type { ReactNode } from 'react';
import { ThemeToggle } from '@/components/ui/theme-toggle';
import { geistMono, geistSans } from './fonts';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'callscope', template: '%s · callscope' },
  description: 'What your model actually did: NeMo Gym model-call capture, browsable.',
};

// Applies a saved theme before paint, so dark mode never flashes light.
const THEME_SCRIPT = `try{var t=localStorage.getItem('callscope-theme');if(t)document.documentElement.classList.add(t)}catch(e){}`;

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" className={`${geistSans.variable} ${geistMono.variable}`} suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
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
