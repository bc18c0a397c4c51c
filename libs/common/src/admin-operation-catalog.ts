/**
 * Each operation of the server's admin API (`/admin/v1`, PROTOCOL §10) by its name (the OpenAPI
 * `operationId`): its method and its path under `/admin/v1`, `{name}` standing for one path segment.
 * Generated from the server's operations table (libs/server/src/http/admin-operations.ts) by
 * `npm run admin-catalog -w @vane/server`; do not edit: `admin-catalog.spec.ts` fails while the two differ.
 */
export const ADMIN_OPERATION_CATALOG = {
  getTenant: { method: 'GET', path: '/tenant', body: false },
  setTenant: { method: 'PUT', path: '/tenant', body: true },
  readAudit: { method: 'GET', path: '/audit', body: false },
  readAuditHead: { method: 'GET', path: '/audit/head', body: false },
  getSealing: { method: 'GET', path: '/sealing', body: false },
  rotateRootKey: { method: 'POST', path: '/root-key/rotate', body: true },
  listProjects: { method: 'GET', path: '/projects', body: false },
  putProject: { method: 'PUT', path: '/projects/{name}', body: true },
  listTokens: { method: 'GET', path: '/tokens', body: false },
  createToken: { method: 'POST', path: '/tokens', body: true },
  revokeToken: { method: 'DELETE', path: '/tokens/{name}', body: false },
  listServices: { method: 'GET', path: '/services', body: false },
  putService: { method: 'PUT', path: '/services/{slug}', body: true },
  readSecretTrail: { method: 'GET', path: '/services/{slug}/audit', body: false },
  getService: { method: 'GET', path: '/services/{slug}', body: false },
  listKeys: { method: 'GET', path: '/services/{slug}/keys', body: false },
  createKey: { method: 'POST', path: '/services/{slug}/keys', body: true },
  revokeKey: { method: 'DELETE', path: '/services/{slug}/keys/{key}', body: false },
  rotateDataKey: { method: 'POST', path: '/services/{slug}/data-key/rotate', body: false },
  listTrusts: { method: 'GET', path: '/services/{slug}/trusts', body: false },
  putTrust: { method: 'PUT', path: '/services/{slug}/trusts/{name}', body: true },
  deleteTrust: { method: 'DELETE', path: '/services/{slug}/trusts/{name}', body: false },
  setConfig: { method: 'PUT', path: '/services/{slug}/configs/{key}', body: true },
  deleteConfig: { method: 'DELETE', path: '/services/{slug}/configs/{key}', body: false },
  setFlag: { method: 'PUT', path: '/services/{slug}/flags/{key}', body: true },
  patchFlag: { method: 'PATCH', path: '/services/{slug}/flags/{key}', body: true },
  deleteFlag: { method: 'DELETE', path: '/services/{slug}/flags/{key}', body: false },
  setSecretVersion: { method: 'PUT', path: '/services/{slug}/secrets/{key}', body: true },
  deleteSecretAllVersions: { method: 'DELETE', path: '/services/{slug}/secrets/{key}', body: false },
  deleteOneSecretVersion: { method: 'DELETE', path: '/services/{slug}/secrets/{key}/versions/{version}', body: false },
} as const;

/** The name of an admin operation: a key of {@link ADMIN_OPERATION_CATALOG}. */
export type AdminOperationId = keyof typeof ADMIN_OPERATION_CATALOG;
