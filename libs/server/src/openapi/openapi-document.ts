/**
 * The server's OpenAPI 3.1 document: the service interface under `/v1/`,
 * the admin API under `/admin/v1/` generated from its operations table, and
 * the ops routes. Served at `GET /admin/v1/openapi.json` and shipped as
 * `@vane/server/openapi.json`.
 */
import { adminPaths, openApiPath, type DocumentedAdminOperation } from './admin-paths.js';
import type { OpenApiDocument } from './openapi-types.js';
import { opsPaths, servicePaths } from './service-paths.js';
import { WIRE_SCHEMAS } from './wire-schemas.js';

/**
 * Builds the document.
 *
 * @param operations - the admin operations table.
 * @throws UndocumentedOperationError when an operation has no answer written in `admin-answers.ts`.
 */
export function buildOpenApiDocument(operations: readonly DocumentedAdminOperation[]): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vane server',
      version: '1',
      summary: 'Runtime configuration, secrets and feature flags: the service interface and the admin API.',
      description:
        'The service interface (`/v1/`) is the wire protocol every Vane client speaks; a service is named by ' +
        'the first label of the host name. The admin API (`/admin/v1/`) manages services, tokens and sealing ' +
        'behind an admin token; each operation names the right it needs (`x-vane-right`) and the audit entry ' +
        'it writes (`x-vane-audit`). Every error answer has the `Error` body. See docs/protocol.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:4400', description: 'A server (admin API and ops routes); any host name' }],
    tags: [
      { name: 'service', description: 'The service interface: what clients call with an API key (PROTOCOL §5–§9)' },
      { name: 'admin', description: 'The admin API, behind an admin token (PROTOCOL §10)' },
      { name: 'ops', description: 'Liveness, readiness and metrics, with no credential' },
    ],
    paths: { ...servicePaths(), ...openApiPath(), ...adminPaths(operations), ...opsPaths() },
    components: {
      schemas: WIRE_SCHEMAS,
      securitySchemes: {
        ServiceApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-API-Key',
          description: 'A secret (`svs_…`) or public (`svp_…`) API key of the service',
        },
        ServiceSession: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A session from `POST /v1/auth/token-exchange`',
        },
        AdminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The owner token (`VANE_ADMIN_TOKEN`) or a scoped admin token (`vat_…`)',
        },
      },
    },
  };
}
