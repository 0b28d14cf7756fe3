'use client';

import { Moon, Sun } from 'lucide-react';
import { useEffect, useState } from 'react';

/** Light/dark switch; without a choice the page follows the system setting. */
export function ThemeToggle() {
  const [dark, setDark] = useState<boolean | null>(null);
  useEffect(() => {
    const root = document.documentElement;
    setDark(root.classList.contains('dark') || (!root.classList.contains('light') && matchMedia('(prefers-color-scheme: dark)').matches));
  }, []);
  const toggle = () => {
    const next = !dark;
    const root = document.documentElement;
    root.classList.remove('dark', 'light');
    root.classList.add(next ? 'dark' : 'light');
    try {
      localStorage.setItem('callscope-theme', next ? 'dark' : 'light');
    } catch {
      // storage may be unavailable; the switch still applies to this page
    }
    setDark(next);
  };
  return (
    <button type="button" onClick={toggle} aria-label={dark ? 'Switch to light mode' : 'Switch to dark mode'} className="rounded p-1.5 text-muted hover:bg-line hover:text-fg">
      {dark ? <Sun size={16} /> : <Moon size={16} />}
    </button>
  );
}
