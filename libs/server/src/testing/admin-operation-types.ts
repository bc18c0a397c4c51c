/**
 * The admin API's types, as the OpenAPI document (`@vane/server/openapi.json`) gives them: what types
 * `adminClient`. Generated from the operations table by `npm run admin-catalog -w @vane/server`; do not edit:
 * `admin-client.spec.ts` fails while the two differ.
 *
 * @packageDocumentation
 */

/** The schemas of the OpenAPI document's `components.schemas` that the admin API's bodies and answers name. */
export interface AdminApiSchemas {
  /** `AdminFlag`: A flag as defined, with `is_active` now. */
  readonly AdminFlag: {
    readonly is_enabled: boolean;
    readonly starts_at: string | null;
    readonly ends_at: string | null;
    readonly ab?: { readonly [key: string]: unknown };
    readonly is_active: boolean;
  };
  /** `AdminRight`. */
  readonly AdminRight: 'read' | 'write' | 'secrets:reveal' | 'secrets:write' | 'keys' | 'admin';
  /** `AuditEntry`. */
  readonly AuditEntry: {
    readonly seq: number;
    readonly at: string;
    readonly actor: string;
    readonly action: string;
    readonly service: string | null;
    readonly key: string | null;
    readonly revision: number | null;
    readonly version?: number | null;
    readonly old?: unknown;
    readonly new?: unknown;
    readonly prev: string;
    readonly hash: string;
    readonly keyed_by?: string;
  };
  /** `AuditHead`. */
  readonly AuditHead: { readonly hash: string; readonly position: number; readonly at: string };
  /** `AuditPage`. */
  readonly AuditPage: { readonly entries: readonly AdminApiSchemas['AuditEntry'][]; readonly next: string | null };
  /** `ConfigValue`: A JSON value other than an object; its JSON type is kept end to end (PROTOCOL §4). */
  readonly ConfigValue: string | number | boolean | readonly unknown[] | null;
  /** `Revision`. */
  readonly Revision: { readonly revision: number };
  /** `SealingStatus`. */
  readonly SealingStatus: {
    readonly sealed: boolean;
    readonly root_key: string | null;
    readonly data_keys: { readonly [key: string]: string };
    readonly other_root_keys: readonly string[];
    readonly missing_root_key: string | null;
  };
  /** `SecretTrailEntry`. */
  readonly SecretTrailEntry: {
    readonly at: string;
    readonly action: string;
    readonly key: string;
    readonly version: number | null;
    readonly actor: string;
  };
  /** `Tenant`. */
  readonly Tenant: {
    readonly overdue_days: number;
    readonly ab_addon: boolean;
    readonly quarantined_until: string | null;
    readonly write_rate_per_minute: number;
  };
  /** `TenantAnswer`. */
  readonly TenantAnswer: { readonly tenant: AdminApiSchemas['Tenant'] };
  /** `TokenScope`: Absent (or null) for every project. */
  readonly TokenScope: null | { readonly projects: readonly string[] } | { readonly services: readonly string[] };
  /** `Trust`: A workload-identity trust, with its defaults filled in. */
  readonly Trust: { readonly provider: 'kubernetes' | 'aws' | 'gcp' | 'azure'; readonly key_type: 'secret' | 'public' };
}

/** Each admin operation by its name (`operationId`): method, path under `/admin/v1`, body, query and answer. */
export interface AdminOperationTypes {
  /** Reads the tenant's settings (`GET /admin/v1/tenant`). */
  readonly getTenant: {
    readonly method: 'GET';
    readonly path: '/tenant';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['TenantAnswer'];
  };
  /** Changes the tenant's billing, add-on, quarantine or write rate (`PUT /admin/v1/tenant`). */
  readonly setTenant: {
    readonly method: 'PUT';
    readonly path: '/tenant';
    readonly body: {
      readonly overdue_days?: number;
      readonly ab_addon?: boolean;
      readonly quarantined_until?: string | null;
      readonly write_rate_per_minute?: number;
    };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: AdminApiSchemas['TenantAnswer'];
  };
  /** Reads one page of the audit, newest first (`GET /admin/v1/audit`). */
  readonly readAudit: {
    readonly method: 'GET';
    readonly path: '/audit';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: 'service' | 'key' | 'actor' | 'since' | 'until' | 'limit' | 'cursor';
    readonly answer: AdminApiSchemas['AuditPage'];
  };
  /** Reads the audit's head, to keep outside the server (404 while the audit is empty) (`GET /admin/v1/audit/head`). */
  readonly readAuditHead: {
    readonly method: 'GET';
    readonly path: '/audit/head';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['AuditHead'];
  };
  /** Reads the sealing keys in use (`GET /admin/v1/sealing`). */
  readonly getSealing: {
    readonly method: 'GET';
    readonly path: '/sealing';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['SealingStatus'];
  };
  /** Rewraps every data key under a new root key (`POST /admin/v1/root-key/rotate`). */
  readonly rotateRootKey: {
    readonly method: 'POST';
    readonly path: '/root-key/rotate';
    readonly body: { readonly [key: string]: unknown };
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: { readonly root_key: string; readonly rewrapped: number };
  };
  /** Lists the projects the token sees (`GET /admin/v1/projects`). */
  readonly listProjects: {
    readonly method: 'GET';
    readonly path: '/projects';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: {
      readonly projects: readonly {
        readonly name: string;
        readonly created_at: string | null;
        readonly services: readonly string[];
      }[];
    };
  };
  /** Creates a project (200 when it exists) (`PUT /admin/v1/projects/{name}`). */
  readonly putProject: {
    readonly method: 'PUT';
    readonly path: '/projects/{name}';
    readonly body: { readonly [key: string]: unknown };
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: { readonly name: string };
  };
  /** Lists the admin tokens within the asking token (never a token) (`GET /admin/v1/tokens`). */
  readonly listTokens: {
    readonly method: 'GET';
    readonly path: '/tokens';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: {
      readonly tokens: readonly {
        readonly name: string;
        readonly scope?: AdminApiSchemas['TokenScope'];
        readonly rights: readonly AdminApiSchemas['AdminRight'][];
        readonly created_at: string;
        readonly last_used_at?: string | null;
      }[];
    };
  };
  /** Mints a scoped admin token, shown once (`POST /admin/v1/tokens`). */
  readonly createToken: {
    readonly method: 'POST';
    readonly path: '/tokens';
    readonly body: {
      readonly name: string;
      readonly scope?: AdminApiSchemas['TokenScope'];
      readonly rights: readonly AdminApiSchemas['AdminRight'][];
    };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: { readonly name: string; readonly token: string };
  };
  /** Revokes an admin token at once (`DELETE /admin/v1/tokens/{name}`). */
  readonly revokeToken: {
    readonly method: 'DELETE';
    readonly path: '/tokens/{name}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: { readonly revoked: string };
  };
  /** Lists the services the token sees (`GET /admin/v1/services`). */
  readonly listServices: {
    readonly method: 'GET';
    readonly path: '/services';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: {
      readonly services: readonly {
        readonly slug: string;
        readonly kind: string;
        readonly project: string;
        readonly revision: number;
      }[];
    };
  };
  /** Reads a service: its configs, flags, secrets' versions and keys (no secret value, no key) (`GET /admin/v1/services/{slug}`). */
  readonly getService: {
    readonly method: 'GET';
    readonly path: '/services/{slug}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: {
      readonly slug: string;
      readonly kind: string;
      readonly project: string;
      readonly revision: number;
      readonly configs: { readonly [key: string]: AdminApiSchemas['ConfigValue'] };
      readonly flags: { readonly [key: string]: AdminApiSchemas['AdminFlag'] };
      readonly secrets: {
        readonly [key: string]: {
          readonly type: 'text' | 'file';
          readonly versions: readonly { readonly version: number; readonly created_at: string }[];
        };
      };
      readonly keys: readonly {
        readonly hint: string;
        readonly type: 'secret' | 'public';
        readonly revoked: boolean;
      }[];
    };
  };
  /** Creates a service, or changes its kind or project (`PUT /admin/v1/services/{slug}`). */
  readonly putService: {
    readonly method: 'PUT';
    readonly path: '/services/{slug}';
    readonly body: { readonly [key: string]: unknown };
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Reads a service's secret trail (`GET /admin/v1/services/{slug}/audit`). */
  readonly readSecretTrail: {
    readonly method: 'GET';
    readonly path: '/services/{slug}/audit';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: { readonly entries: readonly AdminApiSchemas['SecretTrailEntry'][] };
  };
  /** Lists a service's API keys by hash and hint (never a key) (`GET /admin/v1/services/{slug}/keys`). */
  readonly listKeys: {
    readonly method: 'GET';
    readonly path: '/services/{slug}/keys';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: {
      readonly keys: readonly {
        readonly hash: string;
        readonly hint: string;
        readonly type: 'secret' | 'public';
        readonly revoked: boolean;
      }[];
    };
  };
  /** Mints an API key, shown once (`POST /admin/v1/services/{slug}/keys`). */
  readonly createKey: {
    readonly method: 'POST';
    readonly path: '/services/{slug}/keys';
    readonly body: { readonly type: 'secret' | 'public' };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: { readonly key: string };
  };
  /** Revokes an API key (the key, or its hash) (`DELETE /admin/v1/services/{slug}/keys/{key}`). */
  readonly revokeKey: {
    readonly method: 'DELETE';
    readonly path: '/services/{slug}/keys/{key}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Seals a service's secrets under a new data key (`POST /admin/v1/services/{slug}/data-key/rotate`). */
  readonly rotateDataKey: {
    readonly method: 'POST';
    readonly path: '/services/{slug}/data-key/rotate';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: { readonly data_key: string };
  };
  /** Reads a service's workload-identity trusts (`GET /admin/v1/services/{slug}/trusts`). */
  readonly listTrusts: {
    readonly method: 'GET';
    readonly path: '/services/{slug}/trusts';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: { readonly trusts: { readonly [key: string]: AdminApiSchemas['Trust'] } };
  };
  /** Sets a workload-identity trust (`PUT /admin/v1/services/{slug}/trusts/{name}`). */
  readonly putTrust: {
    readonly method: 'PUT';
    readonly path: '/services/{slug}/trusts/{name}';
    readonly body:
      | {
          readonly provider: 'aws';
          readonly key_type: 'secret' | 'public';
          readonly role_arns: readonly string[];
          readonly sts_endpoint?: string;
          readonly audience?: string;
        }
      | {
          readonly provider: 'kubernetes' | 'gcp' | 'azure';
          readonly key_type: 'secret' | 'public';
          readonly issuer: string;
          readonly audience: string;
          readonly subjects: readonly string[];
          readonly jwks?: unknown;
          readonly jwks_url?: unknown;
        };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: { readonly revision: number; readonly name: string; readonly trust: AdminApiSchemas['Trust'] };
  };
  /** Deletes a trust; its sessions end at once (`DELETE /admin/v1/services/{slug}/trusts/{name}`). */
  readonly deleteTrust: {
    readonly method: 'DELETE';
    readonly path: '/services/{slug}/trusts/{name}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Sets a config value (`PUT /admin/v1/services/{slug}/configs/{key}`). */
  readonly setConfig: {
    readonly method: 'PUT';
    readonly path: '/services/{slug}/configs/{key}';
    readonly body: { readonly value: unknown };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Deletes a config (`DELETE /admin/v1/services/{slug}/configs/{key}`). */
  readonly deleteConfig: {
    readonly method: 'DELETE';
    readonly path: '/services/{slug}/configs/{key}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Sets a whole flag (`PUT /admin/v1/services/{slug}/flags/{key}`). */
  readonly setFlag: {
    readonly method: 'PUT';
    readonly path: '/services/{slug}/flags/{key}';
    readonly body: {
      readonly is_enabled: boolean;
      readonly starts_at?: string | null;
      readonly ends_at?: string | null;
      readonly ab?: {
        readonly percentage: number;
        readonly salt: string;
        readonly cohorts?:
          | readonly {
              readonly conditions: readonly {
                readonly attribute: string;
                readonly op: 'eq' | 'neq' | 'in' | 'not_in' | 'starts_with' | 'ends_with' | 'contains';
                readonly values: readonly string[];
              }[];
              readonly percentage: number;
            }[]
          | null;
      } | null;
    };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: { readonly revision: number; readonly removed?: readonly string[]; readonly warning?: string };
  };
  /** Changes the members of a flag it names (`PATCH /admin/v1/services/{slug}/flags/{key}`). */
  readonly patchFlag: {
    readonly method: 'PATCH';
    readonly path: '/services/{slug}/flags/{key}';
    readonly body: {
      readonly is_enabled?: boolean;
      readonly starts_at?: string | null;
      readonly ends_at?: string | null;
      readonly ab?: {
        readonly percentage: number;
        readonly salt: string;
        readonly cohorts?:
          | readonly {
              readonly conditions: readonly {
                readonly attribute: string;
                readonly op: 'eq' | 'neq' | 'in' | 'not_in' | 'starts_with' | 'ends_with' | 'contains';
                readonly values: readonly string[];
              }[];
              readonly percentage: number;
            }[]
          | null;
      } | null;
    };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Deletes a flag (`DELETE /admin/v1/services/{slug}/flags/{key}`). */
  readonly deleteFlag: {
    readonly method: 'DELETE';
    readonly path: '/services/{slug}/flags/{key}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Writes a new version of a secret (`PUT /admin/v1/services/{slug}/secrets/{key}`). */
  readonly setSecretVersion: {
    readonly method: 'PUT';
    readonly path: '/services/{slug}/secrets/{key}';
    readonly body: { readonly value: string; readonly type?: 'text' | 'file' };
    readonly bodyRequired: true;
    readonly query: never;
    readonly answer: {
      readonly revision: number;
      readonly key: string;
      readonly type: 'text' | 'file';
      readonly version: number;
    };
  };
  /** Deletes a secret, every version (`DELETE /admin/v1/services/{slug}/secrets/{key}`). */
  readonly deleteSecretAllVersions: {
    readonly method: 'DELETE';
    readonly path: '/services/{slug}/secrets/{key}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
  /** Deletes one version of a secret (`DELETE /admin/v1/services/{slug}/secrets/{key}/versions/{version}`). */
  readonly deleteOneSecretVersion: {
    readonly method: 'DELETE';
    readonly path: '/services/{slug}/secrets/{key}/versions/{version}';
    readonly body: never;
    readonly bodyRequired: false;
    readonly query: never;
    readonly answer: AdminApiSchemas['Revision'];
  };
}
