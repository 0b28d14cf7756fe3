import { clsx, type ClassValue } from 'clsx';
import { twMerge } from 'tailwind-merge';

/**
 * Joins class names, later ones overriding earlier ones (tailwind-merge). A single class string has nothing
 * to override and is returned as it is: tailwind-merge's first call builds its tables, tens of milliseconds
 * inside the task that hydrates a page, for cards and badges that were given no classes to merge.
 */
export function cn(...inputs: ClassValue[]): string {
  const joined = clsx(inputs);
  let given = 0;
  for (const input of inputs) if (input) given++;
  return given > 1 ? twMerge(joined) : joined;
}

/**
 * Joins class names without tailwind-merge: for per-row markup (tables, trees) whose classes never override
 * one another. tailwind-merge parses each new class string (tens of microseconds apiece), which showed up as
 * a tenth of a second when a tree or a table first mounted.
 */
export const cx = clsx;
