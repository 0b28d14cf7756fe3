// The API's typed errors and the one wrapper every route handler goes through: inputs that fail their
// schema are 400, unknown ids 404, an index that is not ready 503; anything else is logged and answered
// as a 500 without a stack trace (answer.ts's errorAnswer, which `serve`'s node:http routes use too).
import { errorAnswer } from './answer';
import { ApiError, type ErrorCode } from './error-codes';
import { webResponse } from './web-answer';

export { ApiError, ERROR_CODES, notFound, type ErrorCode } from './error-codes';

export function errorResponse(code: ErrorCode, message: string): Response {
  return webResponse(errorAnswer(new ApiError(code, message)));
}

export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      return webResponse(errorAnswer(err));
    }
  };
}
