import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: 'callscope',
  description: 'What your model actually did: NeMo Gym model-call capture, browsable.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="topbar">
          <a href="/" className="brand">
            callscope
          </a>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
