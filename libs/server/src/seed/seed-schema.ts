/**
 * The shape of a seed (or state) file as a valibot schema, published as a
 * JSON Schema (`seeds/vane-seed.schema.json`, written by
 * `npm run seed-schema`) so editors complete and check seed files. The
 * parser (`seed-parser.ts`) stays the authority at start: it also checks
 * what a JSON Schema cannot say (a key in one service only, versions
 * ascending, exactly one of `jwks` and `jwks_url`) and names the JSON path
 * in its errors. The patterns of names are the parser's own; a test holds the
 * two to the same verdicts. (The parser's schemas cannot be converted as they
 * are: their custom checks, messages and transforms have no JSON Schema form.)
 */
import * as v from 'valibot';
import { TRUST_NAME_PATTERN as TRUST_NAME } from '../validation/trust-validation.js';
import {
  API_KEY_PATTERN as API_KEY,
  KEY_PATTERN as KEY,
  SERVICE_KIND_PATTERN as SERVICE_KIND,
  SLUG_PATTERN as SLUG,
} from '../validation/index.js';

const timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('RFC 3339 date-time with Z or an offset'));
const percentage = v.pipe(v.number(), v.minValue(0), v.maxValue(100));
const integerFrom = (min: number) => v.pipe(v.number(), v.integer(), v.minValue(min));
const key = v.pipe(v.string(), v.regex(KEY));
const apiKey = v.pipe(v.string(), v.regex(API_KEY), v.description('"svs_…" (secret) or "svp_…" (public)'));
const httpUrl = v.pipe(v.string(), v.url());

const configValue = v.pipe(
  v.union([v.string(), v.number(), v.boolean(), v.null(), v.array(v.unknown())]),
  v.description('A string, number, boolean, null or array; never an object (PROTOCOL §4)'),
);

const abRule = v.object({
  percentage: v.pipe(percentage, v.description('Rollout percentage when no cohort matches')),
  salt: v.string(),
  cohorts: v.optional(
    v.array(
      v.object({
        conditions: v.array(
          v.object({
            attribute: v.string(),
            op: v.picklist(['eq', 'neq', 'in', 'not_in', 'starts_with', 'ends_with', 'contains']),
            values: v.array(v.string()),
          }),
        ),
        percentage,
      }),
    ),
  ),
});

const flag = v.object({
  is_enabled: v.boolean(),
  starts_at: v.nullish(timestamp),
  ends_at: v.nullish(timestamp),
  ab: v.nullish(abRule),
});

const secretType = v.optional(v.pipe(v.picklist(['text', 'file']), v.description('Default "text"')));
const secretVersion = v.strictObject({ version: integerFrom(1), value: v.string(), created_at: timestamp });
const secret = v.union([
  v.strictObject({ type: secretType, value: v.string() }),
  v.strictObject({
    type: secretType,
    versions: v.union([v.pipe(v.array(v.string()), v.minLength(1)), v.pipe(v.array(secretVersion), v.minLength(1))]),
  }),
]);

const keyType = v.picklist(['secret', 'public']);
const jwtTrust = v.strictObject({
  provider: v.picklist(['kubernetes', 'gcp', 'azure']),
  issuer: v.string(),
  audience: v.string(),
  subjects: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
  jwks: v.optional(v.object({ keys: v.array(v.record(v.string(), v.unknown())) })),
  jwks_url: v.optional(httpUrl),
  key_type: keyType,
});
const awsTrust = v.strictObject({
  provider: v.literal('aws'),
  sts_endpoint: v.optional(httpUrl),
  role_arns: v.pipe(v.array(v.string()), v.minLength(1)),
  audience: v.optional(v.string()),
  key_type: keyType,
});

const auditEntry = v.strictObject({
  at: timestamp,
  action: v.picklist(['secret.set', 'secret.delete', 'secret.version.delete']),
  key,
  version: v.nullable(integerFrom(1)),
  actor: v.string(),
});

// The state form stores a key's hash and hint, never the key.
const storedKey = v.strictObject({
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  hint: v.string(),
  type: v.picklist(['secret', 'public']),
});

const dataKey = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^dk[1-9]\d*$/)),
  root_key: v.string(),
  wrapped: v.string(),
  created_at: timestamp,
});

const service = v.strictObject({
  project: v.optional(v.pipe(v.string(), v.regex(SLUG), v.description('the project it lives in; default "default"'))),
  kind: v.optional(v.pipe(v.string(), v.regex(SERVICE_KIND), v.description('"backend" (default), "frontend", …'))),
  keys: v.optional(v.array(v.union([apiKey, storedKey]))),
  revoked_keys: v.optional(v.array(v.union([apiKey, storedKey]))),
  configs: v.optional(v.record(key, configValue)),
  flags: v.optional(v.record(key, flag)),
  secrets: v.optional(v.record(key, secret)),
  trusts: v.optional(v.record(v.pipe(v.string(), v.regex(TRUST_NAME)), v.union([jwtTrust, awsTrust]))),
  // The state form adds these three; a state file is a valid seed.
  revision: v.optional(integerFrom(0)),
  next_versions: v.optional(v.record(key, integerFrom(1))),
  audit: v.optional(v.array(auditEntry)),
  data_keys: v.optional(v.array(dataKey)),
});

const auditRecord = v.strictObject({
  seq: integerFrom(1),
  at: v.string(),
  actor: v.string(),
  action: v.string(),
  service: v.nullable(v.string()),
  key: v.nullable(v.string()),
  revision: v.nullable(integerFrom(0)),
  version: v.optional(v.nullable(integerFrom(1))),
  old: v.optional(v.unknown()),
  new: v.optional(v.unknown()),
  prev: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  keyed_by: v.optional(v.string()),
});

const epochMs = v.pipe(v.number(), v.integer(), v.minValue(0));

/** The state form's `access`: ended console sessions and wrong admin-token guesses, by hash. */
export const accessStateSchema = v.strictObject({
  ended_sessions: v.optional(v.record(v.string(), epochMs)),
  guesses: v.optional(
    v.record(v.string(), v.strictObject({ count: integerFrom(1), last_failure_ms: epochMs, locked_until_ms: epochMs })),
  ),
});

/** A seed or state file (PROTOCOL §11). */
export const seedSchema = v.strictObject({
  $schema: v.optional(v.pipe(v.string(), v.description('This schema, for editors'))),
  tenant: v.optional(
    v.strictObject({
      overdue_days: v.optional(integerFrom(0)),
      ab_addon: v.optional(v.boolean()),
      quarantined_until: v.nullish(timestamp),
      write_rate_per_minute: v.optional(integerFrom(1)),
    }),
  ),
  projects: v.optional(
    v.record(v.pipe(v.string(), v.regex(SLUG)), v.strictObject({ created_at: v.optional(timestamp) })),
  ),
  services: v.optional(v.record(v.pipe(v.string(), v.regex(SLUG)), service)),
  // The state form's scoped admin tokens (hashes only); a seed leaves them out.
  tokens: v.optional(
    v.record(
      v.string(),
      v.strictObject({
        hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
        scope: v.union([
          v.strictObject({ projects: v.array(v.string()) }),
          v.strictObject({ services: v.array(v.string()) }),
        ]),
        rights: v.array(v.picklist(['read', 'write', 'secrets:reveal', 'secrets:write', 'keys', 'admin'])),
        created_at: timestamp,
        last_used_at: v.nullable(timestamp),
      }),
    ),
  ),
  // The state form's logouts and wrong admin-token guesses (hashes only); a seed leaves them out.
  access: v.optional(accessStateSchema),
  // The state form's audit, hash-chained; a seed leaves it out.
  audit: v.optional(v.array(auditRecord)),
  // A sealed state file's scheme (its secret values are then sealed objects, which only the server reads).
  sealing: v.optional(v.string()),
});

/** What the published JSON Schema says about itself, beside what the converter writes. */
export const SEED_SCHEMA_HEADER = Object.freeze({
  title: 'Vane local server seed',
  description: 'A seed or state file of vane-local-server (PROTOCOL §11).',
});
