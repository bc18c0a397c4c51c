/**
 * The server's OpenAPI 3.1 document: built from the `/v1/` routes and the
 * admin operations table, served at `GET /admin/v1/openapi.json`, written
 * at build to `dist/openapi.json` (`@vane/server/openapi.json`).
 *
 * @packageDocumentation
 */
import { ADMIN_OPERATIONS } from '../http/admin-operations.js';
import { buildOpenApiDocument } from './openapi-document.js';
import type { OpenApiDocument } from './openapi-types.js';

export { buildOpenApiDocument } from './openapi-document.js';
export type { OpenApiDocument } from './openapi-types.js';

/** The document of this server: its `/v1/` routes and every operation of {@link ADMIN_OPERATIONS}. */
export function vaneOpenApiDocument(): OpenApiDocument {
  return buildOpenApiDocument(ADMIN_OPERATIONS);
}
