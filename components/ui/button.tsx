import type { ButtonHTMLAttributes } from 'react';
import { cn } from './cn';

const VARIANTS = {
  primary: 'border-accent bg-accent text-white hover:opacity-90 disabled:opacity-40',
  outline: 'border-line bg-bg text-fg hover:bg-panel disabled:opacity-50',
  ghost: 'border-transparent text-muted hover:bg-panel hover:text-fg disabled:opacity-50',
} as const;

/** The classes of a button, for links that look like one. */
export function buttonClass(variant: keyof typeof VARIANTS = 'outline', className?: string): string {
  return cn(
    'inline-flex h-8 items-center gap-1.5 rounded-md border px-3 text-sm font-medium no-underline whitespace-nowrap transition-colors focus-visible:outline-2 focus-visible:outline-accent disabled:cursor-not-allowed',
    VARIANTS[variant],
    className,
  );
}

export function Button({ variant, className, type = 'button', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof VARIANTS }) {
  return <button type={type} className={buttonClass(variant, className)} {...props} />;
}
