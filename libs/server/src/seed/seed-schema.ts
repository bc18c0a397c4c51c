/**
 * The shape of a seed (or state) file as a valibot schema, published as a
 * JSON Schema (`seeds/vane-seed.schema.json`, written by
 * `npm run seed-schema`) so editors complete and check seed files. The
 * parser (`seed-parser.ts`) stays the authority at start: it also checks
 * what a JSON Schema cannot say (a key in one service only, versions
 * ascending, exactly one of `jwks` and `jwks_url`) and names the JSON path
 * in its errors.
 *
 * One home per member. This schema is the home of the file's own members:
 * the parser takes its member lists from the entries here (`seedSchema`,
 * `serviceSchema`, `projectSchema`, {@link SECRET_MEMBERS}), keeping only the
 * order its messages list them in, which does not compile unless it names
 * exactly these members. `seedFormSchema` is the seed as people write it; the
 * public `VaneServerSeed` (server/server-inputs.ts) is held to it in both
 * directions at compile time. What cannot be shared is the schemas of the
 * values: the parser's (`validation/`) carry custom checks, messages and
 * transforms that have no JSON Schema form, so the two are written apart and
 * each object's entries here and there are written `satisfies
 * SchemaMembers<T>` of the same model type (`domain/model.ts`): a member added
 * to one and not the others does not compile. The patterns of names are the
 * parser's own; `seed-schema.spec.ts` holds the two to the same verdicts.
 */
import * as v from 'valibot';
import { JWT_TRUST_PROVIDERS, KEY_TYPES } from '../domain/model.js';
import type {
  AbCohort,
  AbCondition,
  AbRule,
  AdminTokenRecord,
  ApiKeyRecord,
  AuditEntry,
  AuditRecord,
  AwsTrust,
  DataKeyRecord,
  FlagMember,
  GuessRecord,
  JwtTrust,
  ProjectRecord,
  SecretVersion,
  TenantState,
} from '../domain/model.js';
import { TRUST_NAME_PATTERN as TRUST_NAME } from '../validation/trust-validation.js';
import {
  API_KEY_PATTERN as API_KEY,
  KEY_PATTERN as KEY,
  SERVICE_KIND_PATTERN as SERVICE_KIND,
  SLUG_PATTERN as SLUG,
  type SchemaMembers,
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
          } satisfies SchemaMembers<AbCondition>),
        ),
        percentage,
      } satisfies SchemaMembers<AbCohort>),
    ),
  ),
} satisfies SchemaMembers<AbRule>);

const flag = v.object({
  is_enabled: v.boolean(),
  starts_at: v.nullish(timestamp),
  ends_at: v.nullish(timestamp),
  ab: v.nullish(abRule),
} satisfies Record<FlagMember, v.GenericSchema>);

const secretType = v.optional(v.pipe(v.picklist(['text', 'file']), v.description('Default "text"')));
const secretVersion = v.strictObject({
  version: integerFrom(1),
  value: v.string(),
  created_at: timestamp,
} satisfies SchemaMembers<SecretVersion>);
const secretValue = v.strictObject({ type: secretType, value: v.string() });
const seedVersions = v.pipe(v.array(v.string()), v.minLength(1));
/** A secret as a seed gives it: one value, or its versions as strings. */
const seedSecret = v.union([secretValue, v.strictObject({ type: secretType, versions: seedVersions })]);
/** A secret in either form; the state form's versions carry their number and time. */
const secret = v.union([
  secretValue,
  v.strictObject({
    type: secretType,
    versions: v.union([seedVersions, v.pipe(v.array(secretVersion), v.minLength(1))]),
  }),
]);

/** The members a secret may have, in either form. */
export const SECRET_MEMBERS: ReadonlyArray<string> = Object.freeze(
  Object.keys({ ...secretValue.entries, ...secret.options[1].entries }),
);

const keyType = v.picklist(KEY_TYPES);
const jwtTrust = v.strictObject({
  provider: v.picklist(JWT_TRUST_PROVIDERS),
  issuer: v.string(),
  audience: v.string(),
  subjects: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
  jwks: v.optional(v.object({ keys: v.array(v.record(v.string(), v.unknown())) })),
  jwks_url: v.optional(httpUrl),
  key_type: keyType,
} satisfies SchemaMembers<JwtTrust>);
const awsTrust = v.strictObject({
  provider: v.literal('aws'),
  sts_endpoint: v.optional(httpUrl),
  role_arns: v.pipe(v.array(v.string()), v.minLength(1)),
  audience: v.optional(v.string()),
  key_type: keyType,
} satisfies SchemaMembers<AwsTrust>);
/** A workload-identity trust as a seed (or the admin API) gives it: `VaneServerTrustInput` is held to it. */
export const trustSchema = v.union([jwtTrust, awsTrust]);
/** A trust as a seed or the admin API gives it, before checking (see `VaneServerTrustInput`). */
export type TrustInput = v.InferInput<typeof trustSchema>;

const auditEntry = v.strictObject({
  at: timestamp,
  action: v.picklist(['secret.set', 'secret.delete', 'secret.version.delete']),
  key,
  version: v.nullable(integerFrom(1)),
  actor: v.string(),
} satisfies SchemaMembers<AuditEntry>);

// The state form stores a key's hash and hint, never the key.
const storedKey = v.strictObject({
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  hint: v.string(),
  type: keyType,
} satisfies SchemaMembers<Omit<ApiKeyRecord, 'plaintext'>>); // the key itself is never stored

const dataKey = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^dk[1-9]\d*$/)),
  root_key: v.string(),
  wrapped: v.string(),
  created_at: timestamp,
} satisfies SchemaMembers<DataKeyRecord>);

/** A service as a seed gives it: what people write. */
const seedService = v.strictObject({
  project: v.optional(v.pipe(v.string(), v.regex(SLUG), v.description('the project it lives in; default "default"'))),
  kind: v.optional(v.pipe(v.string(), v.regex(SERVICE_KIND), v.description('"backend" (default), "frontend", …'))),
  keys: v.optional(v.array(apiKey)),
  revoked_keys: v.optional(v.array(apiKey)),
  configs: v.optional(v.record(key, configValue)),
  flags: v.optional(v.record(key, flag)),
  secrets: v.optional(v.record(key, seedSecret)),
  trusts: v.optional(v.record(v.pipe(v.string(), v.regex(TRUST_NAME)), trustSchema)),
});

/** A service in either form: the state form stores keys by hash, secrets with their versions, and four more members. */
export const serviceSchema = v.strictObject({
  ...seedService.entries,
  keys: v.optional(v.array(v.union([apiKey, storedKey]))),
  revoked_keys: v.optional(v.array(v.union([apiKey, storedKey]))),
  secrets: v.optional(v.record(key, secret)),
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
} satisfies SchemaMembers<AuditRecord>);

const epochMs = v.pipe(v.number(), v.integer(), v.minValue(0));

/** The state form's `access`: ended console sessions and wrong admin-token guesses, by hash. */
export const accessStateSchema = v.strictObject({
  ended_sessions: v.optional(v.record(v.string(), epochMs)),
  guesses: v.optional(
    v.record(
      v.string(),
      v.strictObject({
        count: integerFrom(1),
        last_failure_ms: epochMs,
        locked_until_ms: epochMs,
      } satisfies SchemaMembers<GuessRecord>),
    ),
  ),
});

/** A project of the seed's `projects`. */
export const projectSchema = v.strictObject({
  created_at: v.optional(timestamp),
} satisfies SchemaMembers<ProjectRecord>);

/** A seed as people write it (and `startVaneServer` takes it from code: `VaneServerSeed` is held to it). */
export const seedFormSchema = v.strictObject({
  $schema: v.optional(v.pipe(v.string(), v.description('This schema, for editors'))),
  tenant: v.optional(
    v.strictObject({
      overdue_days: v.optional(integerFrom(0)),
      ab_addon: v.optional(v.boolean()),
      quarantined_until: v.nullish(timestamp),
      write_rate_per_minute: v.optional(integerFrom(1)),
    } satisfies SchemaMembers<TenantState>),
  ),
  projects: v.optional(v.record(v.pipe(v.string(), v.regex(SLUG)), projectSchema)),
  services: v.optional(v.record(v.pipe(v.string(), v.regex(SLUG)), seedService)),
});

/** A seed or state file (PROTOCOL §11): the seed form, whose services may be in state form, and the state's own members. */
export const seedSchema = v.strictObject({
  ...seedFormSchema.entries,
  services: v.optional(v.record(v.pipe(v.string(), v.regex(SLUG)), serviceSchema)),
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
      } satisfies SchemaMembers<AdminTokenRecord>),
    ),
  ),
  // The state form's logouts and wrong admin-token guesses (hashes only); a seed leaves them out.
  access: v.optional(accessStateSchema),
  // The state form's audit, hash-chained; a seed leaves it out.
  audit: v.optional(v.array(auditRecord)),
  // A sealed state file's scheme (its secret values are then sealed objects, which only the server reads).
  sealing: v.optional(v.string()),
});

/** A seed as `startVaneServer` takes it from code, before checking (see `VaneServerSeed`). */
export type SeedFormInput = v.InferInput<typeof seedFormSchema>;

/** What the published JSON Schema says about itself, beside what the converter writes. */
export const SEED_SCHEMA_HEADER = Object.freeze({
  title: 'Vane local server seed',
  description: 'A seed or state file of vane-local-server (PROTOCOL §11).',
});
