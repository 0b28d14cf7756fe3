// The API's typed errors and the one wrapper every route handler goes through: inputs that fail their
// schema are 400, unknown ids 404, an index that is not ready 503; anything else is logged and answered
// as a 500 without a stack trace.
import { NextResponse } from 'next/server';
import { ERROR_CODES, toApiError, type ErrorCode } from './error-codes';

export { ApiError, ERROR_CODES, notFound, type ErrorCode } from './error-codes';

export function errorResponse(code: ErrorCode, message: string): NextResponse {
  return NextResponse.json({ error: { code, message } }, { status: ERROR_CODES[code] });
}

export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      const known = toApiError(err);
      if (known) return errorResponse(known.code, known.message);
      console.error('callscope api:', err);
      return errorResponse('internal', 'internal error');
    }
  };
}
