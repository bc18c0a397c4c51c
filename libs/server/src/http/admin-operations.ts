/**
 * Every admin operation, declared once (PROTOCOL §10): its name (`id`, the
 * OpenAPI `operationId`), its method and path under `/admin/v1`, the right
 * it needs and what it reaches (for `authorize`), its input, its answer (its
 * words and its JSON Schema), the audit entry it writes, and the domain call,
 * in three tables by area (`operations/`). The admin API's routing, its
 * authorization, the console's proxy of it (`/console/api/admin/v1/...`),
 * the OpenAPI document, `adminClient` of `@vane/server/testing`, the CLI's
 * catalog (`@vane/common`'s `ADMIN_OPERATION_CATALOG`) and the route table of
 * `docs/operating.md` are all read from {@link ADMIN_OPERATIONS}; an
 * operation without a name, a right, an audit kind, an answer schema or its
 * line in that table fails `admin-operations.spec.ts`.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors/http-error.js';
import { readJsonBody } from './http-io.js';
import type { AdminOperation } from './admin-operation.js';
import { CONTENT_OPERATIONS } from './operations/content-operations.js';
import { SERVICE_OPERATIONS } from './operations/service-operations.js';
import { TENANT_OPERATIONS } from './operations/tenant-operations.js';

export type {
  AdminMethod,
  AdminOperation,
  AnswerDeclaration,
  OperationAnswer,
  OperationCall,
  QueryParameter,
} from './admin-operation.js';

/** The admin API, one entry per operation. */
export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  ...TENANT_OPERATIONS,
  ...SERVICE_OPERATIONS,
  ...CONTENT_OPERATIONS,
];

/** An operation matched to a request path, with its `{name}` members decoded. */
export interface MatchedOperation {
  readonly operation: AdminOperation;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * The operation of `method` whose path matches `segments` (the path under
 * `/admin/v1`, split at `/`, still percent-encoded); undefined when none.
 *
 * @throws HttpError 400 for a segment that is not valid percent-encoding.
 */
export function matchOperation(method: string, segments: readonly string[]): MatchedOperation | undefined {
  for (const operation of ADMIN_OPERATIONS) {
    if (operation.method !== method) continue;
    const params = matchPath(operation.path, segments);
    if (params !== undefined) return { operation, params };
  }
  return undefined;
}

/**
 * The `{name}` members of `segments` (a request path split at `/`, still
 * percent-encoded) under `path` (`/services/{slug}/keys`), decoded; undefined
 * when the path does not match (a `{name}` matches one non-empty segment).
 *
 * @throws HttpError 400 for a member that is not valid percent-encoding.
 */
export function matchPath(path: string, segments: readonly string[]): Readonly<Record<string, string>> | undefined {
  const pattern = path.split('/').slice(1);
  if (pattern.length !== segments.length) return undefined;
  const raw: Array<[string, string]> = [];
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index]!;
    if (part.startsWith('{')) {
      if (segment === '') return undefined;
      raw.push([part.slice(1, -1), segment]);
    } else if (part !== segment) {
      return undefined;
    }
  }
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of raw) params[name] = decodeParam(value, name);
  return params;
}

/** Reads the body an operation takes: JSON, or for one that takes none, nothing (or `{}`). */
export async function readOperationBody(operation: AdminOperation, req: IncomingMessage): Promise<unknown> {
  const body = await readJsonBody(req);
  if (operation.input === 'none') {
    const empty =
      body === undefined ||
      (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
    if (!empty) throw HttpError.invalid(`${operation.method} /admin/v1${operation.path} takes no body`);
  }
  return body;
}

function decodeParam(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw HttpError.invalid(`the ${name} in the path is not valid percent-encoding`);
  }
}
