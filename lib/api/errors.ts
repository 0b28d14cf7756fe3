// The API's typed errors and the one wrapper every route handler goes through: inputs that fail their
// schema are 400, unknown ids 404, an index that is not ready 503; anything else is logged and answered
// as a 500 without a stack trace.
import { NextResponse } from 'next/server';
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

export function errorResponse(code: ErrorCode, message: string): NextResponse {
  return NextResponse.json({ error: { code, message } }, { status: ERROR_CODES[code] });
}

export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (err instanceof ApiError) return errorResponse(err.code, err.message);
      if (err instanceof z.ZodError) {
        const issue = err.issues[0];
        return errorResponse('bad_request', `${issue.path.join('.') || 'input'}: ${issue.message}`);
      }
      console.error('callscope api:', err);
      return errorResponse('internal', 'internal error');
    }
  };
}
