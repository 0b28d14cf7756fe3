// The API's typed errors, without Next: answer.ts's errorAnswer turns them into the one error answer that the Next
// route wrapper (errors.ts) and the routes `serve` answers from node:http (lib/server/direct-routes.ts) both send.
import { z } from 'zod';

export const ERROR_CODES = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  unavailable: 503,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);

/** A typed error or a schema failure as the API reports it; null for anything else (a 500). */
export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof z.ZodError) {
    const issue = err.issues[0];
    return new ApiError('bad_request', `${issue.path.join('.') || 'input'}: ${issue.message}`);
  }
  return null;
}
