/**
 * The admin API by operation name, typed from the operations table: each
 * method of {@link AdminClient} is an operation of the server's table (its
 * `id`, the OpenAPI `operationId`), with that operation's path members,
 * body and answer types.
 */
import { ADMIN_API_PREFIX, ADMIN_OPERATION_CATALOG, adminOperationPath, type PathMemberNames } from '@vane/common';
import type { AdminOperationTypes } from './admin-operation-types.js';
import { adminRequest, type AdminAnswer, type AdminEndpoint, type AdminRequestOptions } from './admin-http.js';

/** The name of an admin operation (its `operationId`): a method of {@link AdminClient}. */
export type AdminOperationName = keyof AdminOperationTypes;

type Operation<Name extends AdminOperationName> = AdminOperationTypes[Name];

/** The values of an operation's path members, by name (a number is written in decimal). */
export type AdminPathValues<Name extends AdminOperationName> = {
  readonly [Member in PathMemberNames<Operation<Name>['path']>]: string | number;
};

/** How one call of {@link AdminClient} is made: {@link AdminRequestOptions}, with the operation's own query. */
export interface AdminCallOptions<Query extends string = never> extends Omit<AdminRequestOptions, 'query'> {
  /** The query parameters the operation reads (`readAudit`: `service`, `key`, `limit`, `cursor`…). */
  readonly query?: { readonly [Name in Query]?: string | number };
}

type PathArgument<Name extends AdminOperationName> = [PathMemberNames<Operation<Name>['path']>] extends [never]
  ? []
  : [params: AdminPathValues<Name>];

type BodyArgument<Name extends AdminOperationName> = [Operation<Name>['body']] extends [never]
  ? []
  : Operation<Name>['bodyRequired'] extends true
    ? [body: Operation<Name>['body']]
    : [body?: Operation<Name>['body']];

/** The arguments of an operation's method: its path members (if any), its body (if it takes one), and options. */
export type AdminCallArguments<Name extends AdminOperationName> = [
  ...PathArgument<Name>,
  ...BodyArgument<Name>,
  options?: AdminCallOptions<Operation<Name>['query']>,
];

/**
 * The admin API, one method per operation of the server's operations table. A method resolves with the 2xx
 * answer, its body typed from the OpenAPI document; it rejects with `AdminRequestError` on any other status,
 * and with `OpenApiMismatchError` on an answer the document does not describe (see `checkAnswers`).
 */
export type AdminClient = {
  readonly [Name in AdminOperationName]: (
    ...args: AdminCallArguments<Name>
  ) => Promise<AdminAnswer<Operation<Name>['answer']>>;
};

/**
 * The admin API of `server` by operation name, typed: names, methods, paths, path members, bodies and answers
 * all come from the server's operations table (through `ADMIN_OPERATION_CATALOG` of `@vane/common` and the
 * OpenAPI document's types). Each call is an {@link adminRequest}: no keep-alive, bounded by `timeoutMs`, and its
 * answer checked against the OpenAPI document where Ajv 8 and `ajv-formats` can be loaded (optional peer
 * dependencies, imported at the first check only; `checkAnswers: true` requires them, `false` skips the check).
 *
 * @param defaults - options every call starts from (a call's own options win).
 *
 * @example
 * ```ts
 * const admin = adminClient(server);
 * const { revision } = await admin.setConfig({ slug: 'shop', key: 'db.pool' }, { value: 20 });
 * const { body } = await admin.readAudit({ query: { service: 'shop', limit: 10 } });
 * ```
 */
export function adminClient(server: AdminEndpoint, defaults: AdminRequestOptions = {}): AdminClient {
  const client: Record<string, (...args: unknown[]) => Promise<AdminAnswer>> = {};
  for (const [name, { method, path, body: takesBody }] of Object.entries(ADMIN_OPERATION_CATALOG)) {
    const hasMembers = path.includes('{');
    client[name] = (...args: unknown[]) => {
      const params = (hasMembers ? args.shift() : {}) as Readonly<Record<string, string | number>>;
      const body = takesBody ? args.shift() : undefined;
      const options = (args.shift() ?? {}) as AdminCallOptions<string>;
      const target = adminOperationPath(name as AdminOperationName, params as never).slice(ADMIN_API_PREFIX.length);
      return adminRequest(server, method, target, body, { ...defaults, ...options });
    };
  }
  return client as unknown as AdminClient;
}
