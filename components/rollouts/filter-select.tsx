'use client';

import { useId } from 'react';
import { cn } from '@/components/ui/cn';
import { controlClass } from '@/components/ui/control';

type Option = string | [value: string, label: string, title?: string, group?: string];

function optionElement(o: Option) {
  const [v, text, title] = typeof o === 'string' ? [o, o] : o;
  return (
    <option key={v} value={v} title={title}>
      {text}
    </option>
  );
}

/** A labelled select whose first option, "any", clears the filter; options with a group are shown under it. */
export function FilterSelect({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string | null | undefined;
  options: readonly Option[];
  onChange: (value: string | null) => void;
}) {
  const id = useId();
  const known = options.some((o) => (typeof o === 'string' ? o : o[0]) === value);
  return (
    <div className="flex flex-col gap-0.5 text-xs text-muted">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value || null)} className={cn(controlClass, 'w-28', value && 'border-accent')}>
        <option value="">any</option>
        {value && !known ? <option value={value}>{value}</option> : null}
        {options.filter((o) => typeof o === 'string' || !o[3]).map(optionElement)}
        {[...new Set(options.flatMap((o) => (typeof o === 'string' || !o[3] ? [] : [o[3]])))].map((group) => (
          <optgroup key={group} label={group}>
            {options.filter((o) => typeof o !== 'string' && o[3] === group).map(optionElement)}
          </optgroup>
        ))}
      </select>
    </div>
  );
}
