/**
 * The shapes the server answers with, as JSON Schemas for the OpenAPI
 * document's `components.schemas` (PROTOCOL §3–§10). Request bodies are not
 * here: they are converted from the valibot schemas the routes check them
 * with (`input-schemas.ts`).
 */
import type { ProtocolErrorCode } from '../errors/http-error.js';
import { ADMIN_RIGHTS, KEY_TYPES, TRUST_PROVIDERS } from '../domain/model.js';
import { KEY_PATTERN, SLUG_PATTERN } from '../validation/index.js';
import { object, ref } from '../http/operations/answer-schemas.js';
import type { JsonSchema } from './openapi-types.js';

/** Every `error` code an answer can carry (PROTOCOL §3); a code missing here does not compile. */
export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'billing_overdue',
  'addon_inactive',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'rate_limited',
  'quarantined',
  'store_unavailable',
  'commit_outcome_unknown',
  'internal_error',
] as const satisfies readonly ProtocolErrorCode[];

/** Fails to compile while {@link ERROR_CODES} misses a {@link ProtocolErrorCode}. */
type MissingErrorCode = Exclude<ProtocolErrorCode, (typeof ERROR_CODES)[number]>;
const everyErrorCode: [MissingErrorCode] extends [never] ? true : MissingErrorCode = true;
void everyErrorCode;

const string: JsonSchema = { type: 'string' };
const integer: JsonSchema = { type: 'integer' };
const timestamp: JsonSchema = { type: 'string', format: 'date-time', description: 'RFC 3339, UTC' };
const nullableTimestamp: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const revision: JsonSchema = { type: 'integer', minimum: 0, description: "The service's revision after the change" };

/** A map from keys to `values`. */
function map(values: JsonSchema, description: string): JsonSchema {
  return { type: 'object', description, additionalProperties: values };
}

/** The schemas of `components.schemas`, by name. */
export const WIRE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Error: {
    ...object({
      error: { type: 'string', enum: [...ERROR_CODES], description: 'A stable code: match on it' },
      message: { type: 'string', description: 'For people; never holds a key or a secret value' },
      until: { ...timestamp, description: 'For `quarantined`: when the quarantine ends' },
    }),
    required: ['error', 'message'],
    description: 'Every non-2xx answer other than 304 (PROTOCOL §3).',
  },
  ServiceRef: object({ slug: { type: 'string', pattern: SLUG_PATTERN.source }, kind: string }),
  ConfigValue: {
    type: ['string', 'number', 'boolean', 'array', 'null'],
    description: 'A JSON value other than an object; its JSON type is kept end to end (PROTOCOL §4)',
  },
  FlagView: object({
    is_enabled: { type: 'boolean' },
    starts_at: nullableTimestamp,
    ends_at: nullableTimestamp,
    is_active: { type: 'boolean', description: 'Computed by the server from `is_enabled` and the schedule' },
  }),
  SecretView: object({
    type: { type: 'string', enum: ['text', 'file'] },
    value: string,
    version: { type: 'integer', minimum: 1 },
  }),
  Snapshot: {
    ...object(
      {
        service: ref('ServiceRef'),
        revision,
        configs: map(ref('ConfigValue'), 'By config key'),
        flags: map(ref('FlagView'), 'By flag key'),
        secrets: map(ref('SecretView'), 'By secret key; absent for a public key and a frontend service'),
      },
      ['secrets'],
    ),
    description: 'The answer of `GET /v1/sync` (PROTOCOL §5).',
  },
  Patch: {
    ...object(
      {
        base: integer,
        revision,
        service: ref('ServiceRef'),
        configs: map(ref('ConfigValue'), 'Set'),
        flags: map(ref('FlagView'), 'Set'),
        secrets: map(ref('SecretView'), 'Set (never for a public key)'),
        deleted: {
          type: 'object',
          properties: {
            configs: { type: 'array', items: string },
            flags: { type: 'array', items: string },
            secrets: { type: 'array', items: string },
          },
        },
        committed_at: timestamp,
      },
      ['service', 'configs', 'flags', 'secrets', 'deleted', 'committed_at'],
    ),
    description: 'The `data` of a `patch` event of `GET /v1/stream` (PROTOCOL §6).',
  },
  ResyncEvent: {
    ...object({ revision }),
    description: 'The `data` of a `resync` event: sync unless already at `revision` (PROTOCOL §6)',
  },
  GoawayEvent: {
    ...object({ reconnect_in_ms: { type: 'integer', minimum: 0, maximum: 60_000 } }),
    description: 'The `data` of a `goaway` event: reconnect after `reconnect_in_ms` (PROTOCOL §6)',
  },
  EvaluateAbAnswer: object({ results: map({ type: 'boolean' }, 'By flag key; a key missing reads as false') }),
  TokenExchangeAnswer: object({ token: { type: 'string', description: 'A session JWT' }, expires_at: timestamp }),
  SecretWriteAnswer: object({
    key: { type: 'string', pattern: KEY_PATTERN.source },
    type: { type: 'string', enum: ['text', 'file'] },
    version: { type: 'integer', minimum: 1 },
  }),
  Revision: object({ revision }),
  Tenant: object({
    overdue_days: { type: 'integer', minimum: 0 },
    ab_addon: { type: 'boolean' },
    quarantined_until: nullableTimestamp,
    write_rate_per_minute: { type: 'integer', minimum: 1 },
  }),
  TenantAnswer: object({ tenant: ref('Tenant') }),
  AuditEntry: object(
    {
      seq: { type: 'integer', minimum: 1 },
      at: timestamp,
      actor: string,
      action: string,
      service: { type: ['string', 'null'] },
      key: { type: ['string', 'null'] },
      revision: { type: ['integer', 'null'] },
      version: { type: ['integer', 'null'] },
      old: { description: 'The value before (configs and flags)' },
      new: { description: 'The value after (configs and flags)' },
      prev: { type: 'string', description: 'The hash of the entry before (64 zeros for the first)' },
      hash: string,
      keyed_by: { type: 'string', description: 'The root key whose derived key made `hash`, when keyed' },
    },
    ['version', 'old', 'new', 'keyed_by'],
  ),
  AuditPage: object({
    entries: { type: 'array', items: ref('AuditEntry') },
    next: { type: ['string', 'null'], description: 'The cursor of the next (older) page; null on the last' },
  }),
  AuditHead: object({
    hash: { type: 'string', description: "The latest entry's hash: keep it outside the server" },
    position: { type: 'integer', minimum: 1, description: "The latest entry's `seq`" },
    at: timestamp,
  }),
  SecretTrailEntry: object({
    at: timestamp,
    action: string,
    key: string,
    version: { type: ['integer', 'null'] },
    actor: string,
  }),
  SealingStatus: object({
    sealed: { type: 'boolean' },
    root_key: { type: ['string', 'null'] },
    data_keys: map(string, 'By service slug'),
    other_root_keys: { type: 'array', items: string },
    missing_root_key: { type: ['string', 'null'] },
  }),
  AdminRight: { type: 'string', enum: [...ADMIN_RIGHTS] },
  TokenScope: {
    description: 'Absent (or null) for every project',
    oneOf: [
      { type: 'null' },
      object({ projects: { type: 'array', items: string } }),
      object({ services: { type: 'array', items: string } }),
    ],
  },
  Trust: {
    type: 'object',
    description: 'A workload-identity trust, with its defaults filled in',
    properties: {
      provider: { type: 'string', enum: [...TRUST_PROVIDERS] },
      key_type: { type: 'string', enum: [...KEY_TYPES] },
    },
    required: ['provider', 'key_type'],
  },
  Readiness: object({
    ready: { type: 'boolean' },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: string, ok: { type: 'boolean' }, detail: string },
        required: ['name', 'ok'],
      },
    },
  }),
  AdminFlag: {
    type: 'object',
    description: 'A flag as defined, with `is_active` now',
    properties: {
      is_enabled: { type: 'boolean' },
      starts_at: nullableTimestamp,
      ends_at: nullableTimestamp,
      ab: { type: 'object' },
      is_active: { type: 'boolean' },
    },
    required: ['is_enabled', 'starts_at', 'ends_at', 'is_active'],
  },
};
