/**
 * Checks every answer the server's e2e suites receive against the OpenAPI
 * document (`libs/server/src/openapi/`), so the document cannot drift from
 * the server: the checks of `src/testing/openapi-conformance.ts` (the same
 * `adminRequest` and `adminClient` run), with Ajv loaded up front so the
 * shared HTTP helpers of `http-client.ts` can check synchronously.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ADMIN_OPERATIONS } from '../../src/http/admin-operations.js';
import { buildOpenApiDocument } from '../../src/openapi/openapi-document.js';
import { OpenApiConformance } from '../../src/testing/openapi-conformance.js';
import type { ReceivedAnswer } from '../../src/testing/openapi-mismatch.js';

export { OpenApiMismatchError, type ReceivedAnswer } from '../../src/testing/openapi-mismatch.js';

/** The server's document, as the checks read it. */
export const conformance = new OpenApiConformance(buildOpenApiDocument(ADMIN_OPERATIONS), { Ajv2020, addFormats });

/** @throws OpenApiMismatchError when the OpenAPI document does not describe `answer`. */
export function checkAgainstOpenApi(answer: ReceivedAnswer): void {
  conformance.check(answer);
}

/** @throws OpenApiMismatchError when the OpenAPI document does not describe this `/v1/stream` event. */
export function checkStreamEvent(event: string | undefined, data: string): void {
  conformance.checkEvent(event, data);
}
