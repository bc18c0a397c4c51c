/**
 * Schemas of the members only a state file has (PROTOCOL §11): secret
 * versions with their number and time, and the secret audit trail.
 */
import * as v from 'valibot';
import { ADMIN_RIGHTS } from '../domain/model.js';
import type {
  AdminTokenRecord,
  ApiKeyRecord,
  AuditAction,
  AuditEntry,
  AuditRecord,
  ChangeAction,
  DataKeyRecord,
  JsonValue,
  SecretVersion,
} from '../domain/model.js';
import { apiKeyRecord } from '../domain/api-key-hash.js';
import {
  apiKeySchema,
  describeType,
  integerSchema,
  jsonValueSchema,
  keySchema,
  knownMembersOnly,
  membersInOrder,
  membersSchema,
  objectSchema,
  secretValueSchema,
  stringSchema,
  type SchemaMembers,
  timestampSchema,
} from './index.js';

const AUDIT_ACTIONS: ReadonlyArray<AuditAction> = ['secret.set', 'secret.delete', 'secret.version.delete'];

/** A timestamp that must be there: `null` (unbounded) means nothing for a moment in the past. */
const instantSchema = v.pipe(
  timestampSchema,
  v.check((value) => value !== null, 'must be a timestamp, got null'),
  v.transform((value) => value!),
);

/** A secret version in state form: `{version, value, created_at}`, nothing else. */
const SECRET_VERSION = {
  created_at: instantSchema,
  version: integerSchema(1),
  value: secretValueSchema,
} satisfies SchemaMembers<SecretVersion>;
export const secretVersionSchema = v.pipe(
  objectSchema,
  knownMembersOnly(membersInOrder(SECRET_VERSION, ['version', 'value', 'created_at'])),
  membersSchema(SECRET_VERSION),
  v.transform((entry): SecretVersion => ({ version: entry.version, value: entry.value, created_at: entry.created_at })),
);

const AUDIT_ENTRY = {
  at: instantSchema,
  action: v.picklist(AUDIT_ACTIONS as AuditAction[], `must be one of ${AUDIT_ACTIONS.join(', ')}`),
  key: keySchema('secret'),
  version: v.nullable(integerSchema(1)),
  actor: stringSchema,
} satisfies SchemaMembers<AuditEntry>;

/** An entry of a service's secret audit trail: `{at, action, key, version, actor}`, nothing else. */
export const auditEntrySchema = v.pipe(
  objectSchema,
  knownMembersOnly(Object.keys(AUDIT_ENTRY)),
  membersSchema(AUDIT_ENTRY),
  v.transform((entry): AuditEntry => ({
    at: entry.at,
    action: entry.action,
    key: entry.key,
    version: entry.version,
    actor: entry.actor,
  })),
);

/** A service's audit trail. */
export const auditTrailSchema = v.array(
  auditEntrySchema,
  (issue) => `must be an array, got ${describeType(issue.input)}`,
);

// The key itself (`plaintext`) is never stored.
const STORED_API_KEY = {
  hash: v.pipe(stringSchema, v.regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits (a SHA-256)')),
  hint: stringSchema,
  type: v.picklist(['secret', 'public'], 'must be "secret" or "public"'),
} satisfies SchemaMembers<Omit<ApiKeyRecord, 'plaintext'>>;

/** A key's stored record (state form): `{hash, hint, type}`, never the key. */
const storedApiKeySchema = v.pipe(
  objectSchema,
  knownMembersOnly(Object.keys(STORED_API_KEY)),
  membersSchema(STORED_API_KEY),
  v.transform((entry): ApiKeyRecord => ({ hash: entry.hash, hint: entry.hint, type: entry.type })),
);

/**
 * A list of API keys (`keys`, `revoked_keys`): keys (seed form) or their
 * stored records (state form); that each key belongs to one service is the
 * parser's check.
 */
export const apiKeyListSchema = v.array(
  v.union([v.pipe(apiKeySchema, v.transform(apiKeyRecord)), storedApiKeySchema], (issue) =>
    typeof issue.input === 'object' && issue.input !== null
      ? 'must be a stored key {"hash", "hint", "type"}'
      : 'an API key must be "svs_" or "svp_" followed by 1–200 characters of [A-Za-z0-9_-]',
  ),
  (issue) => `must be an array of API keys, got ${describeType(issue.input)}`,
);

const DATA_KEY = {
  id: v.pipe(stringSchema, v.regex(/^dk[1-9]\d*$/, 'must be dk1, dk2, …')),
  root_key: stringSchema,
  wrapped: stringSchema,
  created_at: instantSchema,
} satisfies SchemaMembers<DataKeyRecord>;

/** A service's wrapped data keys (state form). */
export const dataKeyListSchema = v.array(
  v.pipe(
    objectSchema,
    knownMembersOnly(Object.keys(DATA_KEY)),
    membersSchema(DATA_KEY),
    v.transform((entry): DataKeyRecord => ({ ...entry })),
  ),
  (issue) => `must be an array, got ${describeType(issue.input)}`,
);

/**
 * A secret's `versions`: at least one, each a string (seed form) or a
 * {@link secretVersionSchema} (state form); which form, the parser decides.
 */
export const secretVersionListSchema = v.pipe(
  v.array(v.unknown(), (issue) => `must be an array, got ${describeType(issue.input)}`),
  v.minLength(1, 'must hold at least one version (deleting the last version deletes the secret)'),
);

const AUDIT_RECORD = {
  seq: integerSchema(1),
  at: stringSchema,
  actor: stringSchema,
  action: stringSchema,
  service: v.nullable(stringSchema),
  key: v.nullable(stringSchema),
  revision: v.nullable(integerSchema(0)),
  version: v.optional(v.nullable(integerSchema(1))),
  old: v.optional(jsonValueSchema),
  new: v.optional(jsonValueSchema),
  prev: stringSchema,
  hash: stringSchema,
  keyed_by: v.optional(stringSchema),
} satisfies SchemaMembers<AuditRecord>;

/**
 * An entry of the server's audit in state form (`AuditRecord`). Only its
 * shape is checked here: whether the chain holds is `audit verify`'s to say,
 * and a start never refuses a state over it.
 */
export const auditRecordSchema = v.pipe(
  objectSchema,
  knownMembersOnly(Object.keys(AUDIT_RECORD)),
  membersSchema(AUDIT_RECORD),
  v.transform((entry): AuditRecord => {
    // Members in the order the store writes them, so a state file reads back into equal data.
    return {
      seq: entry.seq,
      at: entry.at,
      actor: entry.actor,
      action: entry.action as ChangeAction,
      service: entry.service,
      key: entry.key,
      revision: entry.revision,
      ...(entry.version === undefined ? {} : { version: entry.version }),
      ...(entry.old === undefined ? {} : { old: entry.old as JsonValue }),
      ...(entry.new === undefined ? {} : { new: entry.new as JsonValue }),
      prev: entry.prev,
      hash: entry.hash,
      ...(entry.keyed_by === undefined ? {} : { keyed_by: entry.keyed_by }),
    };
  }),
);

/** The server's audit in state form. */
export const auditRecordListSchema = v.array(
  auditRecordSchema,
  (issue) => `must be an array, got ${describeType(issue.input)}`,
);

const ADMIN_TOKEN_RECORD = {
  hash: v.pipe(stringSchema, v.regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits (a SHA-256)')),
  scope: v.union(
    [v.strictObject({ projects: v.array(stringSchema) }), v.strictObject({ services: v.array(stringSchema) })],
    'must be {"projects": [...]} or {"services": [...]}',
  ),
  rights: v.array(v.picklist([...ADMIN_RIGHTS], `must be one of ${ADMIN_RIGHTS.join(', ')}`)),
  created_at: instantSchema,
  last_used_at: v.nullable(instantSchema),
} satisfies SchemaMembers<AdminTokenRecord>;

/** A scoped admin token in state form: its hash, never the token. */
export const adminTokenRecordSchema = v.pipe(
  objectSchema,
  knownMembersOnly(Object.keys(ADMIN_TOKEN_RECORD)),
  membersSchema(ADMIN_TOKEN_RECORD),
  v.transform((entry): AdminTokenRecord => ({
    hash: entry.hash,
    scope:
      'projects' in entry.scope ? { projects: [...entry.scope.projects] } : { services: [...entry.scope.services] },
    rights: [...entry.rights],
    created_at: entry.created_at,
    last_used_at: entry.last_used_at,
  })),
);
