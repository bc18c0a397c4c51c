/**
 * What the OpenAPI check of `openapi-conformance.ts` reads and throws, apart from it: the public types of
 * `@vane/server/testing` name these without reaching Ajv's types (an optional peer dependency).
 */

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
export class OpenApiMismatchError extends Error {
  /** Stable error code. */
  readonly code = 'VANE_TEST_OPENAPI_MISMATCH' as const;
  override readonly name = 'OpenApiMismatchError';
}
