/**
 * Each operation of the server's admin API (`/admin/v1`, PROTOCOL §10) by its name (the OpenAPI
 * `operationId`): its method and its path under `/admin/v1`, `{name}` standing for one path segment.
 * Generated from the server's operations table (libs/server/src/http/admin-operations.ts) by
 * `npm run admin-catalog -w @vane/server`; do not edit: `admin-catalog.spec.ts` fails while the two differ.
 */
export const ADMIN_OPERATION_CATALOG = {
  getTenant: { method: 'GET', path: '/tenant' },
  setTenant: { method: 'PUT', path: '/tenant' },
  readAudit: { method: 'GET', path: '/audit' },
  readAuditHead: { method: 'GET', path: '/audit/head' },
  getSealing: { method: 'GET', path: '/sealing' },
  rotateRootKey: { method: 'POST', path: '/root-key/rotate' },
  listProjects: { method: 'GET', path: '/projects' },
  putProject: { method: 'PUT', path: '/projects/{name}' },
  listTokens: { method: 'GET', path: '/tokens' },
  createToken: { method: 'POST', path: '/tokens' },
  revokeToken: { method: 'DELETE', path: '/tokens/{name}' },
  listServices: { method: 'GET', path: '/services' },
  putService: { method: 'PUT', path: '/services/{slug}' },
  readSecretTrail: { method: 'GET', path: '/services/{slug}/audit' },
  getService: { method: 'GET', path: '/services/{slug}' },
  listKeys: { method: 'GET', path: '/services/{slug}/keys' },
  createKey: { method: 'POST', path: '/services/{slug}/keys' },
  revokeKey: { method: 'DELETE', path: '/services/{slug}/keys/{key}' },
  rotateDataKey: { method: 'POST', path: '/services/{slug}/data-key/rotate' },
  listTrusts: { method: 'GET', path: '/services/{slug}/trusts' },
  putTrust: { method: 'PUT', path: '/services/{slug}/trusts/{name}' },
  deleteTrust: { method: 'DELETE', path: '/services/{slug}/trusts/{name}' },
  setConfig: { method: 'PUT', path: '/services/{slug}/configs/{key}' },
  deleteConfig: { method: 'DELETE', path: '/services/{slug}/configs/{key}' },
  setFlag: { method: 'PUT', path: '/services/{slug}/flags/{key}' },
  patchFlag: { method: 'PATCH', path: '/services/{slug}/flags/{key}' },
  deleteFlag: { method: 'DELETE', path: '/services/{slug}/flags/{key}' },
  setSecretVersion: { method: 'PUT', path: '/services/{slug}/secrets/{key}' },
  deleteSecretAllVersions: { method: 'DELETE', path: '/services/{slug}/secrets/{key}' },
  deleteOneSecretVersion: { method: 'DELETE', path: '/services/{slug}/secrets/{key}/versions/{version}' },
} as const;

/** The name of an admin operation: a key of {@link ADMIN_OPERATION_CATALOG}. */
export type AdminOperationId = keyof typeof ADMIN_OPERATION_CATALOG;
