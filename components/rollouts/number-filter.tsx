'use client';

import { useEffect, useId, useState } from 'react';
import { cn } from '@/components/ui/cn';
import { controlClass } from '@/components/ui/control';

/** A number input that applies on Enter or when it loses focus (not on every keystroke). */
export function NumberFilter({ label, value, onChange, step = 'any', integer = false, placeholder }: { label: string; value: number | undefined; onChange: (v: number | null) => void; step?: string; integer?: boolean; placeholder?: string }) {
  const id = useId();
  const [text, setText] = useState(value === undefined ? '' : String(value));
  useEffect(() => setText(value === undefined ? '' : String(value)), [value]);
  const commit = () => {
    const trimmed = text.trim();
    const n = trimmed === '' ? null : Number(trimmed);
    if (n !== null && (!Number.isFinite(n) || (integer && (!Number.isInteger(n) || n < 0)))) {
      setText(value === undefined ? '' : String(value));
      return;
    }
    if ((n ?? undefined) !== value) onChange(n);
  };
  return (
    <div className="flex flex-col gap-0.5 text-xs text-muted">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={step}
        min={integer ? 0 : undefined}
        value={text}
        placeholder={placeholder}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
        className={cn(controlClass, 'w-[4.5rem]', value !== undefined && 'border-accent')}
      />
    </div>
  );
}
