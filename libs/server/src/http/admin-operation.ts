/**
 * What an admin operation is (see `ADMIN_OPERATIONS` in admin-operations.ts),
 * and the small helpers the operation tables share.
 */
import type { IncomingMessage } from 'node:http';
import type * as v from 'valibot';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import type { AccessTarget } from '../auth/authorize.js';
import type { AdminRight, ChangeAction, ServiceData } from '../domain/model.js';
import type { JsonSchema } from './operations/answer-schemas.js';
import { objectBody, parseBody } from './request-bodies.js';
import type { ServerContext } from './server-context.js';

/** An HTTP method of the admin API. */
export type AdminMethod = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

/** What one call of an operation has to work with. */
export interface OperationCall {
  readonly ctx: ServerContext;
  readonly req: IncomingMessage;
  readonly principal: AdminPrincipal;
  /** The path's `{name}` members, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The request body, read and parsed as JSON (undefined when empty), once authorization has passed. */
  readonly body: unknown;
  /** The service of a `service` target, seen by the principal. */
  readonly service: ServiceData | undefined;
}

/** What an operation answers: a status and a JSON body, sent once every change made is durable. */
export interface OperationAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** A query parameter an operation reads (none is required). */
export interface QueryParameter {
  readonly name: string;
  /** One line, for the OpenAPI document. */
  readonly description: string;
  readonly schema: JsonSchema;
}

/** What a success of an operation answers. */
export interface AnswerDeclaration {
  /** In the route table's words (docs/operating.md, a test holds the two together): status and members. */
  readonly description: string;
  /** Each success status and the JSON Schema of its body, as the OpenAPI document gives it. */
  readonly success: Readonly<{ 200?: JsonSchema; 201?: JsonSchema }>;
}

/** One admin operation. */
export interface AdminOperation {
  /** Its name: the OpenAPI `operationId`, the method of `adminClient` (`@vane/server/testing`), the CLI's catalog key. */
  readonly id: string;
  /** One line, for the OpenAPI document. */
  readonly summary: string;
  readonly method: AdminMethod;
  /** Under `/admin/v1`, `{name}` standing for one path segment: `/services/{slug}/configs/{key}`. */
  readonly path: string;
  /** The right it needs ({@link extraRights} may add more for some inputs). */
  readonly right: AdminRight;
  /** What it reaches, from the path: a service, a project, everything, or a list filtered by scope. */
  readonly target: (params: Readonly<Record<string, string>>) => AccessTarget;
  /** The body it takes: `none` (empty, or `{}`), or a JSON body checked against `schema` by the domain call. */
  readonly input: 'none' | { readonly what: string; readonly schema: v.GenericSchema | 'token-request' | 'any-object' };
  /** Rights it needs besides {@link right} for this body (minting a secret key). */
  readonly extraRights?: (body: unknown) => readonly AdminRight[];
  /** The query parameters it reads, if any. */
  readonly query?: readonly QueryParameter[];
  /** What a success answers: its words and its schema. */
  readonly answer: AnswerDeclaration;
  /** The audit entry a success writes; `none` for reads. */
  readonly audit: ChangeAction | 'none';
  /** The domain call. */
  readonly run: (call: OperationCall) => Promise<OperationAnswer>;
}

/** A minted key or a trust's sessions act as a secret key: they reach what `secrets:reveal` and `secrets:write` guard. */
export const SECRET_KEY_RIGHTS: readonly AdminRight[] = ['secrets:reveal', 'secrets:write'];

/** The target of an operation on the service of the path's `{slug}`. */
export const service = (params: Readonly<Record<string, string>>): AccessTarget => ({
  kind: 'service',
  slug: params['slug']!,
});
/** The target of an operation on what spans every project. */
export const everything = (): AccessTarget => ({ kind: 'everything' });
/** The target of a list filtered by the principal's scope. */
export const visible = (): AccessTarget => ({ kind: 'visible' });

/** Runs a change against the latest committed state; resolves once it is committed. */
export function write<T>(ctx: ServerContext, slugs: readonly string[] | 'all', run: () => T): Promise<T> {
  return ctx.changes.commit({ slugs, run });
}

/** A success answer (200 unless `status` says otherwise). */
export function ok(body: unknown, status = 200): OperationAnswer {
  return { status, body };
}

/** A query parameter of an operation (none is required); a string unless `schema` says otherwise. */
export function query(name: string, description: string, schema: JsonSchema = { type: 'string' }): QueryParameter {
  return { name, description, schema };
}

/** The body's members: a JSON object (an empty body reads as `{}`), else 400. */
export function members(body: unknown): Record<string, unknown> {
  return parseBody(objectBody, body ?? {}, 'a JSON object');
}
