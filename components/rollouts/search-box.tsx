'use client';

import { Search } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { cn } from '@/components/ui/cn';
import { controlClass } from './filter-select';

const DEBOUNCE_MS = 350;

/** Search over rollout ids, tasks and agents; typing settles before the view changes. */
export function SearchBox({ value, onChange }: { value: string | undefined; onChange: (q: string | null) => void }) {
  const id = useId();
  const [text, setText] = useState(value ?? '');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (document.activeElement?.getAttribute('name') !== 'q') setText(value ?? '');
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const change = (next: string) => {
    setText(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => onChange(next.trim() ? next.trim().slice(0, 200) : null), DEBOUNCE_MS);
  };
  return (
    <div className="flex flex-col gap-0.5 text-xs text-muted">
      <label htmlFor={id}>Search</label>
      <span className="relative">
        <Search size={14} className="pointer-events-none absolute top-1/2 left-2 -translate-y-1/2 text-muted" aria-hidden />
        <input
          id={id}
          type="search"
          name="q"
          value={text}
          maxLength={200}
          placeholder="id, task, agent…"
          onChange={(e) => change(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            clearTimeout(timer.current);
            onChange(text.trim() || null);
          }}
          className={cn(controlClass, 'w-44 pl-7', value && 'border-accent')}
        />
      </span>
    </div>
  );
}
