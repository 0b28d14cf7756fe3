'use client';

// The search input of the runs and rollouts pages: a labelled search box whose query lives in the URL. The text
// typed is the box's own until it is passed on (after `debounceMs` of quiet, or at once, or on Enter), trimmed and
// at most 200 characters; a query changed elsewhere (back, a link) shows unless the box has the focus.
import { Search } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { cn } from './cn';
import { controlClass } from './control';

const MAX_CHARS = 200;

export function SearchBox({
  label,
  placeholder,
  value,
  onChange,
  debounceMs = 0,
  className,
}: {
  label: string;
  placeholder: string;
  value: string | null | undefined;
  onChange: (q: string | null) => void;
  /** 0: every keystroke is passed on (a list filtered in the page); more for a search the server answers. */
  debounceMs?: number;
  /** The input's width. */
  className: string;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(value ?? '');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (document.activeElement !== input.current) setText(value ?? '');
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const submit = (next: string) => onChange(next.trim() ? next.trim().slice(0, MAX_CHARS) : null);
  const change = (next: string) => {
    setText(next);
    clearTimeout(timer.current);
    if (debounceMs > 0) timer.current = setTimeout(() => submit(next), debounceMs);
    else submit(next);
  };
  return (
    <div className="flex flex-col gap-0.5 text-xs text-muted">
      <label htmlFor={id}>{label}</label>
      <span className="relative">
        <Search size={14} className="pointer-events-none absolute top-1/2 left-2 -translate-y-1/2 text-muted" aria-hidden />
        <input
          ref={input}
          id={id}
          type="search"
          name="q"
          value={text}
          maxLength={MAX_CHARS}
          placeholder={placeholder}
          onChange={(e) => change(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            clearTimeout(timer.current);
            submit(text);
          }}
          className={cn(controlClass, className, 'pl-7', value && 'border-accent')}
        />
      </span>
    </div>
  );
}
