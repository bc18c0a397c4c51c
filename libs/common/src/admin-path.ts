import { ADMIN_OPERATION_CATALOG, type AdminOperationId } from './admin-operation-catalog.js';

/** Where the server mounts its admin API. */
export const ADMIN_API_PREFIX = '/admin/v1';

/** The `{name}` members of a path template: `'/services/{slug}/configs/{key}'` → `'slug' | 'key'`. */
export type PathMemberNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathMemberNames<Rest>
  : never;

/** The path members an admin operation's path takes, by name. */
export type AdminPathParams<Id extends AdminOperationId> = {
  readonly [Name in PathMemberNames<(typeof ADMIN_OPERATION_CATALOG)[Id]['path']>]: string | number;
};

/** A path member missing from the values given for an admin operation's path. */
export class AdminPathMemberError extends Error {
  /** Stable error code. */
  readonly code = 'VANE_ADMIN_PATH_MEMBER_MISSING' as const;
  override readonly name = 'AdminPathMemberError';
}

/**
 * The path of the admin operation `id`, from the server's root (`/admin/v1/...`), each `{name}` replaced by
 * `params[name]`, percent-encoded.
 *
 * @example
 * ```ts
 * adminOperationPath('setConfig', { slug: 'shop', key: 'db.url' }); // '/admin/v1/services/shop/configs/db.url'
 * ```
 * @throws AdminPathMemberError when a member of the path has no value in `params`.
 */
export function adminOperationPath<Id extends AdminOperationId>(id: Id, params: AdminPathParams<Id>): string {
  const { path } = ADMIN_OPERATION_CATALOG[id];
  const values = params as Readonly<Record<string, string | number | undefined>>;
  return (
    ADMIN_API_PREFIX +
    path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined) throw new AdminPathMemberError(`${id}: the path member {${name}} has no value`);
      return encodeURIComponent(String(value));
    })
  );
}
