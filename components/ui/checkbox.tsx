import type { InputHTMLAttributes } from 'react';
import { cn } from './cn';

export function Checkbox({ className, ...props }: Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  return <input type="checkbox" className={cn('size-4 cursor-pointer rounded border-line accent-accent', className)} {...props} />;
}
