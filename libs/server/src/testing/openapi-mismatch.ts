/**
 * What the OpenAPI check of `openapi-conformance.ts` reads and throws, apart from it: the public types of
 * `@vane/server/testing` name these without reaching Ajv's types (an optional peer dependency).
 */
import { VaneServerError } from '../errors/vane-server-error.js';

/** An answer as a helper received it. */
export interface ReceivedAnswer {
  readonly method: string;
  /** The request's path, with its query. */
  readonly path: string;
  readonly status: number;
  readonly contentType: string | undefined;
  /** The body, or undefined when the helper does not read it (an event stream). */
  readonly text: string | undefined;
}

/** An answer the document does not describe. */
export class OpenApiMismatchError extends VaneServerError {
  readonly code = 'VANE_TEST_OPENAPI_MISMATCH' as const;

  /** @param message - the request, the answer's status and what the document lacks. */
  constructor(message: string) {
    super(message);
  }
}
