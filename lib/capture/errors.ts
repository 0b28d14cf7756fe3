// `error_category` (spec §6.6): the status classification, the normal-completion precedence and the
// exception classification.
import type { TerminalKind } from './sse';

export const ERROR_CATEGORIES = [
  'timeout',
  'rate_limit',
  'auth',
  'not_found',
  'client_error',
  'upstream_error',
  'incomplete',
  'stream_truncated',
  'capture_parse_error',
  'connection',
  'exception',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

export function classifyStatus(status: number | null | undefined): ErrorCategory | null {
  if (status === null || status === undefined || status < 400) return null;
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status < 500) return 'client_error';
  return 'upstream_error';
}

export interface Completion {
  status: number | null;
  streaming: boolean;
  terminal: TerminalKind | null;
  bodyNonEmpty: boolean;
  responseIsNull: boolean;
}

/** The first rule that applies, for a call that completed without an exception. */
export function completionCategory(c: Completion): ErrorCategory | null {
  const byStatus = classifyStatus(c.status);
  if (byStatus) return byStatus;
  if (c.terminal === 'error') return 'upstream_error';
  if (c.terminal === 'incomplete') return 'incomplete';
  if (c.streaming && c.terminal === null) return 'stream_truncated';
  if (c.bodyNonEmpty && c.responseIsNull) return 'capture_parse_error';
  return null;
}

/** By exception class name: `timeout` first, then `conn`, else `exception`. */
export function classifyException(name: string, isTimeout = false): ErrorCategory {
  const lower = name.toLowerCase();
  if (isTimeout || lower.includes('timeout')) return 'timeout';
  if (lower.includes('conn')) return 'connection';
  return 'exception';
}

/** The exception path: the status classification when the status is an int >= 400, else by exception. */
export function exceptionCategory(status: number | null, exceptionName: string, isTimeout = false): ErrorCategory {
  return (status !== null && status >= 400 ? classifyStatus(status) : null) ?? classifyException(exceptionName, isTimeout);
}
