/**
 * Reading a JSON answer without ever quoting it.
 *
 * @packageDocumentation
 */
import { UnexpectedResponseError } from '../errors.js';
import type { ServiceAnswer } from './service-http.js';

/**
 * Parses an answer's body as JSON.
 *
 * @param operation - named in the error (`sync`, `evaluate-ab`…).
 * @throws UnexpectedResponseError - when the body is not JSON; its message gives the length, never the text.
 */
export function parseJsonAnswer(answer: ServiceAnswer, operation: string): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    // Never attach the SyntaxError: V8 quotes part of the body, which may hold secrets.
    throw new UnexpectedResponseError(`${operation}: the answer is not valid JSON (${answer.text.length} characters)`, {
      status: answer.status,
    });
  }
}
