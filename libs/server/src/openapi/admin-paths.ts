/**
 * The admin API (`/admin/v1/...`, PROTOCOL §10) as OpenAPI paths, generated
 * from the operations table: each operation's name, summary, method, path,
 * right, input schema, query, answer schemas and audit kind come from its
 * entry (`src/http/operations/`).
 */
import type { AdminOperation, QueryParameter } from '../http/admin-operation.js';
import { SLUG_PATTERN, TOKEN_NAME_PATTERN } from '../validation/index.js';
import { OPENAPI_PATH } from '../http/openapi-route.js';
import { inputSchema } from './input-schemas.js';
import { errorAnswers, jsonAnswer } from './openapi-responses.js';
import type {
  JsonSchema,
  OpenApiMethod,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiPathItem,
  OpenApiRequestBody,
} from './openapi-types.js';
import { ref } from '../http/operations/answer-schemas.js';

/** Where the admin API is mounted. */
export const ADMIN_PREFIX = '/admin/v1';

/** What the document reads of an entry of the operations table (all of it but the call). */
export type DocumentedAdminOperation = Omit<AdminOperation, 'target' | 'run'>;

/** Thrown when an operation of the table cannot be documented: no success answer, or a path member not described. */
export class UndocumentedOperationError extends Error {
  /** Stable error code. */
  readonly code = 'VANE_OPENAPI_UNDOCUMENTED_OPERATION' as const;
  override readonly name = 'UndocumentedOperationError';
}

/** What each path member stands for, and its shape. */
const PATH_MEMBERS: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema }>> = {
  slug: { description: "The service's slug", schema: { type: 'string', pattern: SLUG_PATTERN.source } },
  key: {
    description: 'The config, flag or secret key (for API keys: the key or its hash), percent-encoded',
    schema: { type: 'string', minLength: 1 },
  },
  name: {
    description: 'The project, token or trust name, percent-encoded',
    schema: { type: 'string', minLength: 1, maxLength: 256 },
  },
  version: { description: 'The secret version', schema: { type: 'integer', minimum: 1 } },
};

/** `POST /tokens`'s body, checked in code by `parseTokenRequest`. */
const TOKEN_REQUEST: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: TOKEN_NAME_PATTERN.source },
    scope: ref('TokenScope'),
    rights: { type: 'array', items: ref('AdminRight'), minItems: 1 },
  },
  required: ['name', 'rights'],
};

/** The errors every admin call can answer: bad request, no token, no right, not seen, a guessing address. */
const READ_ERRORS = [400, 401, 403, 404, 429];
/** And a write: a conflict (a taken name, a replica without the root key), a body too large, a store that cannot take it. */
const WRITE_ERRORS = [...READ_ERRORS, 409, 413, 503, 504];

/** The paths of `operations`, under {@link ADMIN_PREFIX}. */
export function adminPaths(operations: readonly DocumentedAdminOperation[]): Record<string, OpenApiPathItem> {
  const paths: Record<string, Partial<Record<OpenApiMethod, OpenApiOperation>> & { parameters?: OpenApiParameter[] }> =
    {};
  for (const operation of operations) {
    const success = Object.entries(operation.answer.success);
    if (success.length === 0) {
      throw new UndocumentedOperationError(
        `${operation.method} ${operation.path} (${operation.id}) has no success answer`,
      );
    }
    const item = (paths[ADMIN_PREFIX + operation.path] ??= { parameters: pathParameters(operation.path) });
    const body = requestBody(operation);
    item[operation.method.toLowerCase() as OpenApiMethod] = {
      operationId: operation.id,
      summary: operation.summary,
      description: [
        `Needs the right \`${operation.right}\`.`,
        ...(operation.extraRights
          ? ['Some bodies need more rights (see the rights table of the server README, "Projects and admin tokens").']
          : []),
        operation.audit === 'none' ? 'Writes no audit entry.' : `Writes the audit entry \`${operation.audit}\`.`,
        operation.input === 'none' ? 'Takes no body.' : `Takes ${operation.input.what}.`,
        `Answers ${operation.answer.description}.`,
      ].join(' '),
      tags: ['admin'],
      security: [{ AdminToken: [] }],
      ...(operation.query ? { parameters: operation.query.map(queryParameter) } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: {
        ...Object.fromEntries(success.map(([status, schema]) => [status, jsonAnswer(operation.summary, schema)])),
        ...errorAnswers(operation.method === 'GET' ? READ_ERRORS : WRITE_ERRORS),
      },
      'x-vane-right': operation.right,
      'x-vane-audit': operation.audit,
    };
  }
  for (const item of Object.values(paths)) if (item.parameters?.length === 0) delete item.parameters;
  return paths;
}

function queryParameter({ name, description, schema }: QueryParameter): OpenApiParameter {
  return { name, in: 'query', required: false, description, schema };
}

function pathParameters(path: string): OpenApiParameter[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const member = PATH_MEMBERS[name!];
    if (member === undefined)
      throw new UndocumentedOperationError(`the path member {${name}} of ${path} has no description`);
    return { name: name!, in: 'path', required: true, ...member };
  });
}

function requestBody(operation: DocumentedAdminOperation): OpenApiRequestBody | undefined {
  const { input } = operation;
  if (input === 'none') return undefined;
  const schema =
    input.schema === 'token-request'
      ? TOKEN_REQUEST
      : input.schema === 'any-object'
        ? { type: 'object' }
        : inputSchema(input.schema);
  return {
    description: input.what,
    // A body checked in code as any object may be left out: it reads as `{}`.
    required: input.schema !== 'any-object',
    content: { 'application/json': { schema } },
  };
}

/** `GET /admin/v1/openapi.json`: this document. */
export function openApiPath(): Record<string, OpenApiPathItem> {
  return {
    [OPENAPI_PATH]: {
      get: {
        operationId: 'getOpenApi',
        summary: 'This OpenAPI document',
        description:
          "Needs no token: the document describes the API, not this server's data, and is the one shipped as " +
          '`@vane/server/openapi.json`. Served only where the admin API is (`--admin-listen`, not under a ' +
          "service's public host name).",
        tags: ['admin'],
        security: [],
        responses: {
          '200': jsonAnswer('The OpenAPI 3.1 document', {
            type: 'object',
            properties: { openapi: { type: 'string', const: '3.1.0' }, paths: { type: 'object' } },
            required: ['openapi', 'paths'],
          }),
          ...errorAnswers([404]),
        },
      },
    },
  };
}
