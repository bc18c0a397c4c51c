/**
 * The source of `@vane/common`'s `ADMIN_OPERATION_CATALOG` (libs/common/src/admin-operation-catalog.ts): each
 * admin operation's name, method and path, read from the operations table, for what calls the admin API without
 * installing the server (the `vane` CLI). Written by `npm run admin-catalog -w @vane/server`;
 * `admin-catalog.spec.ts` fails while the file differs from what this renders.
 */
import type { AdminOperation } from './admin-operation.js';

/** Where the catalog is, from the repository's root. */
export const ADMIN_CATALOG_FILE = 'libs/common/src/admin-operation-catalog.ts';

/** The text of {@link ADMIN_CATALOG_FILE} for `operations` (prettier-stable as written). */
export function adminCatalogSource(
  operations: readonly Pick<AdminOperation, 'id' | 'method' | 'path' | 'input'>[],
): string {
  const entries = operations.map(
    ({ id, method, path, input }) => `  ${id}: { method: '${method}', path: '${path}', body: ${input !== 'none'} },`,
  );
  return [
    '/**',
    " * Each operation of the server's admin API (`/admin/v1`, PROTOCOL §10) by its name (the OpenAPI",
    ' * `operationId`): its method and its path under `/admin/v1`, `{name}` standing for one path segment.',
    " * Generated from the server's operations table (libs/server/src/http/admin-operations.ts) by",
    ' * `npm run admin-catalog -w @vane/server`; do not edit: `admin-catalog.spec.ts` fails while the two differ.',
    ' */',
    'export const ADMIN_OPERATION_CATALOG = {',
    ...entries,
    '} as const;',
    '',
    '/** The name of an admin operation: a key of {@link ADMIN_OPERATION_CATALOG}. */',
    'export type AdminOperationId = keyof typeof ADMIN_OPERATION_CATALOG;',
    '',
  ].join('\n');
}
