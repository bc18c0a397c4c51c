/**
 * The admin API (`/admin/v1/...`, PROTOCOL §10) as OpenAPI paths, generated
 * from the operations table: each operation's method, path, right, input
 * schema and audit kind come from its entry; its name, summary and answer
 * shapes from {@link ADMIN_ANSWERS}.
 */
import type * as v from 'valibot';
import type { AdminRight } from '../domain/model.js';
import { SLUG_PATTERN, TOKEN_NAME_PATTERN } from '../validation/index.js';
import { OPENAPI_PATH } from '../http/openapi-route.js';
import { ADMIN_ANSWERS } from './admin-answers.js';
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
import { ref } from './wire-schemas.js';

/** Where the admin API is mounted. */
export const ADMIN_PREFIX = '/admin/v1';

/** What the document reads of an entry of the operations table. */
export interface DocumentedAdminOperation {
  readonly method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  /** Under {@link ADMIN_PREFIX}, `{name}` standing for one segment. */
  readonly path: string;
  readonly right: AdminRight;
  /** `none`, or the body's description and its schema (`token-request` and `any-object` are checked in code). */
  readonly input: 'none' | { readonly what: string; readonly schema: v.GenericSchema | 'token-request' | 'any-object' };
  /** Rights some bodies need besides {@link right} (minting a secret key). */
  readonly extraRights?: (body: unknown) => readonly AdminRight[];
  /** The success answer, in the operating guide's words. */
  readonly answers: string;
  /** The audit entry a success writes, or `none`. */
  readonly audit: string;
}

/** The key of an operation in {@link ADMIN_ANSWERS}: `PUT /services/{slug}/configs/{key}`. */
export function operationKey(operation: Pick<DocumentedAdminOperation, 'method' | 'path'>): string {
  return `${operation.method} ${operation.path}`;
}

/** Thrown when an operation of the table has no entry in {@link ADMIN_ANSWERS}. */
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
    const answer = ADMIN_ANSWERS[operationKey(operation)];
    if (answer === undefined) {
      throw new UndocumentedOperationError(
        `${operationKey(operation)} has no entry in ADMIN_ANSWERS (libs/server/src/openapi/admin-answers.ts)`,
      );
    }
    const item = (paths[ADMIN_PREFIX + operation.path] ??= { parameters: pathParameters(operation.path) });
    const body = requestBody(operation);
    item[operation.method.toLowerCase() as OpenApiMethod] = {
      operationId: answer.id,
      summary: answer.summary,
      description: [
        `Needs the right \`${operation.right}\`.`,
        ...(operation.extraRights
          ? ['Some bodies need more rights (see the rights table of the server README, "Projects and admin tokens").']
          : []),
        operation.audit === 'none' ? 'Writes no audit entry.' : `Writes the audit entry \`${operation.audit}\`.`,
        operation.input === 'none' ? 'Takes no body.' : `Takes ${operation.input.what}.`,
        `Answers ${operation.answers}.`,
      ].join(' '),
      tags: ['admin'],
      security: [{ AdminToken: [] }],
      ...(answer.query ? { parameters: answer.query } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: {
        ...Object.fromEntries(
          Object.entries(answer.success).map(([status, schema]) => [status, jsonAnswer(answer.summary, schema)]),
        ),
        ...errorAnswers(operation.method === 'GET' ? READ_ERRORS : WRITE_ERRORS),
      },
      'x-vane-right': operation.right,
      'x-vane-audit': operation.audit,
    };
  }
  for (const item of Object.values(paths)) if (item.parameters?.length === 0) delete item.parameters;
  return paths;
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
