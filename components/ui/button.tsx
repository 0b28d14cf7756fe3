import type { ButtonHTMLAttributes } from 'react';
import { cn, cx } from './cn';

const VARIANTS = {
  primary: 'border-accent bg-accent text-white hover:opacity-90 disabled:opacity-40',
  outline: 'border-line bg-bg text-fg hover:bg-panel disabled:opacity-50',
  ghost: 'border-transparent text-muted hover:bg-panel hover:text-fg disabled:opacity-50',
} as const;

const SIZES = { md: 'h-8 px-3', sm: 'h-7 px-2' } as const;

/**
 * The classes of a button, for links that look like one. Variants and sizes never conflict with the base, so
 * tailwind-merge (whose first call is slow: it builds its class tables) runs only for a caller's `className`.
 */
export function buttonClass(variant: keyof typeof VARIANTS = 'outline', className?: string, size: keyof typeof SIZES = 'md'): string {
  return (className ? cn : cx)(
    'inline-flex items-center gap-1.5 rounded-md border text-sm font-medium no-underline whitespace-nowrap transition-colors focus-visible:outline-2 focus-visible:outline-accent disabled:cursor-not-allowed',
    SIZES[size],
    VARIANTS[variant],
    className,
  );
}

export function Button({ variant, size, className, type = 'button', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof VARIANTS; size?: keyof typeof SIZES }) {
  return <button type={type} className={buttonClass(variant, className, size)} {...props} />;
}
