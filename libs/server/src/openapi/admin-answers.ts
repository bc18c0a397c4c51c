/**
 * What the OpenAPI document says of each admin operation beyond what the
 * operations table declares: the name a generated client calls it by, a
 * one-line summary, and the JSON Schema of each success answer. Keyed by
 * `<METHOD> <path>` as the table writes them; `openapi-document.spec.ts`
 * fails while a key here has no operation, or an operation no key.
 */
import type { JsonSchema, OpenApiParameter } from './openapi-types.js';
import { ref } from './wire-schemas.js';

/** The document's words and answer shapes for one admin operation. */
export interface AdminAnswer {
  /** The `operationId`: what a generated client names the call. */
  readonly id: string;
  /** One line, for the route table and the document. */
  readonly summary: string;
  /** Each success status and its body's schema. */
  readonly success: Readonly<Record<number, JsonSchema>>;
  /** Query parameters, if it reads any. */
  readonly query?: readonly OpenApiParameter[];
}

const revision = ref('Revision');

/** A change that answers the service's new revision. */
function changes(id: string, summary: string): AdminAnswer {
  return { id, summary, success: { 200: revision } };
}

function object(properties: Readonly<Record<string, JsonSchema>>, optional: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties).filter((name) => !optional.includes(name)) };
}

function query(name: string, description: string, schema: JsonSchema = { type: 'string' }): OpenApiParameter {
  return { name, in: 'query', required: false, description, schema };
}

const tokenListing = object(
  {
    name: { type: 'string' },
    scope: ref('TokenScope'),
    rights: { type: 'array', items: ref('AdminRight') },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
  },
  ['scope', 'last_used_at'],
);

/** An API key as the admin API lists it: its hint, never the key. */
const KEY_MEMBERS: Readonly<Record<string, JsonSchema>> = {
  hint: { type: 'string' },
  type: { type: 'string', enum: ['secret', 'public'] },
  revoked: { type: 'boolean' },
};

/** A secret as the admin API lists it: its versions, never a value. */
const secretListing = object({
  type: { type: 'string', enum: ['text', 'file'] },
  versions: {
    type: 'array',
    items: object({ version: { type: 'integer' }, created_at: { type: 'string', format: 'date-time' } }),
  },
});

/** By `<METHOD> <path>` of the operations table. */
export const ADMIN_ANSWERS: Readonly<Record<string, AdminAnswer>> = {
  'GET /tenant': { id: 'getTenant', summary: "Reads the tenant's settings", success: { 200: ref('TenantAnswer') } },
  'PUT /tenant': {
    id: 'setTenant',
    summary: "Changes the tenant's billing, add-on, quarantine or write rate",
    success: { 200: ref('TenantAnswer') },
  },
  'GET /audit': {
    id: 'readAudit',
    summary: 'Reads one page of the audit, newest first',
    success: { 200: ref('AuditPage') },
    query: [
      query('service', 'Only entries of this service'),
      query('key', 'Only entries of this key'),
      query('actor', 'Only entries of this actor'),
      query('since', 'Only entries at or after (RFC 3339)', { type: 'string', format: 'date-time' }),
      query('until', 'Only entries before (RFC 3339)', { type: 'string', format: 'date-time' }),
      query('limit', 'Entries per page (default 100)', { type: 'integer', minimum: 1, maximum: 1000 }),
      query('cursor', 'The `next` of the page before'),
    ],
  },
  'GET /audit/head': {
    id: 'readAuditHead',
    summary: "Reads the audit's head, to keep outside the server (404 while the audit is empty)",
    success: { 200: ref('AuditHead') },
  },
  'GET /sealing': {
    id: 'getSealing',
    summary: 'Reads the sealing keys in use',
    success: { 200: ref('SealingStatus') },
  },
  'POST /root-key/rotate': {
    id: 'rotateRootKey',
    summary: 'Rewraps every data key under a new root key',
    success: { 200: object({ root_key: { type: 'string' }, rewrapped: { type: 'integer', minimum: 0 } }) },
  },
  'GET /projects': {
    id: 'listProjects',
    summary: 'Lists the projects the token sees',
    success: {
      200: object({
        projects: {
          type: 'array',
          items: object({
            name: { type: 'string' },
            created_at: { type: ['string', 'null'], format: 'date-time', description: 'Null for `default`' },
            services: { type: 'array', items: { type: 'string' } },
          }),
        },
      }),
    },
  },
  'PUT /projects/{name}': {
    id: 'putProject',
    summary: 'Creates a project (200 when it exists)',
    success: { 200: object({ name: { type: 'string' } }), 201: object({ name: { type: 'string' } }) },
  },
  'GET /tokens': {
    id: 'listTokens',
    summary: 'Lists the admin tokens within the asking token (never a token)',
    success: { 200: object({ tokens: { type: 'array', items: tokenListing } }) },
  },
  'POST /tokens': {
    id: 'createToken',
    summary: 'Mints a scoped admin token, shown once',
    success: { 201: object({ name: { type: 'string' }, token: { type: 'string' } }) },
  },
  'DELETE /tokens/{name}': {
    id: 'revokeToken',
    summary: 'Revokes an admin token at once',
    success: { 200: object({ revoked: { type: 'string' } }) },
  },
  'GET /services': {
    id: 'listServices',
    summary: 'Lists the services the token sees',
    success: {
      200: object({
        services: {
          type: 'array',
          items: object({
            slug: { type: 'string' },
            kind: { type: 'string' },
            project: { type: 'string' },
            revision: { type: 'integer' },
          }),
        },
      }),
    },
  },
  'PUT /services/{slug}': changes('putService', 'Creates a service, or changes its kind or project'),
  'GET /services/{slug}': {
    id: 'getService',
    summary: "Reads a service: its configs, flags, secrets' versions and keys (no secret value, no key)",
    success: {
      200: object({
        slug: { type: 'string' },
        kind: { type: 'string' },
        project: { type: 'string' },
        revision: { type: 'integer' },
        configs: { type: 'object', additionalProperties: ref('ConfigValue') },
        flags: { type: 'object', additionalProperties: ref('AdminFlag') },
        secrets: { type: 'object', additionalProperties: secretListing },
        keys: { type: 'array', items: object(KEY_MEMBERS) },
      }),
    },
  },
  'GET /services/{slug}/audit': {
    id: 'readSecretTrail',
    summary: "Reads a service's secret trail",
    success: { 200: object({ entries: { type: 'array', items: ref('SecretTrailEntry') } }) },
  },
  'GET /services/{slug}/keys': {
    id: 'listKeys',
    summary: "Lists a service's API keys by hash and hint (never a key)",
    success: {
      200: object({
        keys: { type: 'array', items: object({ hash: { type: 'string' }, ...KEY_MEMBERS }) },
      }),
    },
  },
  'POST /services/{slug}/keys': {
    id: 'createKey',
    summary: 'Mints an API key, shown once',
    success: { 201: object({ key: { type: 'string' } }) },
  },
  'DELETE /services/{slug}/keys/{key}': changes('revokeKey', 'Revokes an API key (the key, or its hash)'),
  'POST /services/{slug}/data-key/rotate': {
    id: 'rotateDataKey',
    summary: "Seals a service's secrets under a new data key",
    success: { 200: object({ data_key: { type: 'string' } }) },
  },
  'GET /services/{slug}/trusts': {
    id: 'listTrusts',
    summary: "Reads a service's workload-identity trusts",
    success: { 200: object({ trusts: { type: 'object', additionalProperties: ref('Trust') } }) },
  },
  'PUT /services/{slug}/trusts/{name}': {
    id: 'putTrust',
    summary: 'Sets a workload-identity trust',
    success: { 200: object({ revision: { type: 'integer' }, name: { type: 'string' }, trust: ref('Trust') }) },
  },
  'DELETE /services/{slug}/trusts/{name}': changes('deleteTrust', 'Deletes a trust; its sessions end at once'),
  'PUT /services/{slug}/configs/{key}': changes('setConfig', 'Sets a config value'),
  'DELETE /services/{slug}/configs/{key}': changes('deleteConfig', 'Deletes a config'),
  'PUT /services/{slug}/flags/{key}': {
    id: 'setFlag',
    summary: 'Sets a whole flag',
    success: {
      200: object(
        {
          revision: { type: 'integer' },
          removed: { type: 'array', items: { type: 'string' } },
          warning: { type: 'string' },
        },
        ['removed', 'warning'],
      ),
    },
  },
  'PATCH /services/{slug}/flags/{key}': changes('patchFlag', 'Changes the members of a flag it names'),
  'DELETE /services/{slug}/flags/{key}': changes('deleteFlag', 'Deletes a flag'),
  'PUT /services/{slug}/secrets/{key}': {
    id: 'setSecretVersion',
    summary: 'Writes a new version of a secret',
    success: {
      200: object({
        revision: { type: 'integer' },
        key: { type: 'string' },
        type: { type: 'string', enum: ['text', 'file'] },
        version: { type: 'integer', minimum: 1 },
      }),
    },
  },
  'DELETE /services/{slug}/secrets/{key}': changes('deleteSecretAllVersions', 'Deletes a secret, every version'),
  'DELETE /services/{slug}/secrets/{key}/versions/{version}': changes(
    'deleteOneSecretVersion',
    'Deletes one version of a secret',
  ),
};
