/**
 * Validation of workload-identity trusts (PROTOCOL §8), as the seed file, the
 * state file and the admin API give them: valibot schemas per provider.
 *
 * The trust's shape has one home, the model (`JwtTrust`, `AwsTrust`,
 * `TRUST_PROVIDERS`, `KEY_TYPES` in `domain/model.ts`): each provider's
 * entries here, and the published seed schema's, are written `satisfies
 * SchemaMembers<…>` of it, the member lists of messages come from the
 * entries ({@link membersInOrder}), and the public `VaneServerTrustInput` is
 * held to the seed schema's trust both ways at compile time
 * (`server/server-inputs.ts`).
 */
import * as v from 'valibot';
import {
  JWT_TRUST_PROVIDERS,
  TRUST_PROVIDERS,
  type AwsTrust,
  type JsonValue,
  type JwtTrust,
  type TrustDefinition,
} from '../domain/model.js';
import {
  checkSchema,
  describeType,
  keyTypeSchema,
  knownMembersOnly,
  membersInOrder,
  membersSchema,
  objectSchema,
  stringSchema,
  type SchemaMembers,
} from './index.js';

/** Where an AWS trust forwards the signed `GetCallerIdentity` unless told otherwise. */
export const DEFAULT_STS_ENDPOINT = 'https://sts.amazonaws.com';

/** Trust names; also the pattern the seed JSON Schema publishes. */
export const TRUST_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]{1,512}$/;

/** A trust name: 1–64 characters of `[A-Za-z0-9._-]`, starting with a letter or digit. */
export const trustNameSchema = v.pipe(
  stringSchema,
  v.regex(
    TRUST_NAME_PATTERN,
    'a trust name is 1 to 64 characters of A-Z a-z 0-9 . _ -, starting with a letter or a digit',
  ),
);

/** Returns `value` when it is a trust name (see {@link trustNameSchema}). */
export function parseTrustName(value: unknown, path: string): string {
  return checkSchema(trustNameSchema, value, path);
}

const httpUrlSchema = v.pipe(
  stringSchema,
  v.rawCheck<string>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    let url: URL;
    try {
      url = new URL(dataset.value);
    } catch {
      addIssue({ message: 'must be an absolute http or https URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      addIssue({ message: `must use http or https, not ${url.protocol}` });
    }
  }),
);

const arrayOfStringsMessage = (issue: v.BaseIssue<unknown>): string =>
  `must be an array of strings, got ${describeType(issue.input)}`;

/** A non-empty list of non-empty strings; `what` names an element in messages. */
function nonEmptyStringsSchema(what: string) {
  return v.pipe(
    v.array(v.pipe(stringSchema, v.minLength(1, `an empty ${what} is not allowed`)), arrayOfStringsMessage),
    v.minLength(1, `must list at least one ${what}`),
  );
}

const roleArnsSchema = v.pipe(
  v.array(
    v.pipe(
      stringSchema,
      v.minLength(1, 'an empty role ARN is not allowed'),
      v.regex(ROLE_ARN, 'must be an IAM role or user ARN such as "arn:aws:iam::123456789012:role/shop"'),
    ),
    arrayOfStringsMessage,
  ),
  v.minLength(1, 'must list at least one role ARN'),
);

const nonEmptyStringSchema = (problem: string) => v.pipe(stringSchema, v.minLength(1, problem));

const jwkSchema = v.pipe(
  objectSchema,
  v.rawCheck<Record<string, unknown>>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const jwk = dataset.value;
    if (typeof jwk['kty'] !== 'string') {
      addIssue({
        message: 'every JWK needs a "kty" string',
        path: [{ type: 'object', origin: 'value', input: jwk, key: 'kty', value: jwk['kty'] }],
      });
    } else if (Object.hasOwn(jwk, 'd') || jwk['kty'] === 'oct') {
      addIssue({ message: 'a JWKS for verification holds public keys only (this key is private or symmetric)' });
    }
  }),
);

const NO_KEYS = 'a JSON Web Key Set needs a non-empty "keys" array';

const jwksSchema = v.pipe(
  membersSchema({ keys: v.pipe(v.array(jwkSchema, NO_KEYS), v.minLength(1, NO_KEYS)) }),
  // A JSON round trip keeps the stored copy independent of the caller's object.
  v.transform(({ keys }) => JSON.parse(JSON.stringify({ keys })) as { keys: Array<{ [key: string]: JsonValue }> }),
);

/** What every trust starts with, checked first: its provider, then the key type it grants. */
const trustHeadSchema = membersSchema({
  provider: v.picklist(
    TRUST_PROVIDERS,
    (issue) => `must be one of ${TRUST_PROVIDERS.map((p) => `"${p}"`).join(', ')}, got ${describeType(issue.input)}`,
  ),
  key_type: keyTypeSchema,
});

/** The members of an AWS trust, each with its schema, checked in this order. */
const AWS_TRUST = {
  provider: v.literal('aws'),
  key_type: keyTypeSchema,
  role_arns: roleArnsSchema,
  sts_endpoint: v.optional(httpUrlSchema, DEFAULT_STS_ENDPOINT),
  audience: v.optional(nonEmptyStringSchema('must not be empty (leave it out to accept any)')),
} satisfies SchemaMembers<AwsTrust>;

/** The members of an AWS trust as messages list them. */
const AWS_MEMBERS = membersInOrder(AWS_TRUST, ['provider', 'sts_endpoint', 'role_arns', 'audience', 'key_type']);

/** AWS: `{provider: "aws", role_arns, sts_endpoint?, audience?, key_type}`. */
export const awsTrustSchema = v.pipe(
  objectSchema,
  knownMembersOnly(AWS_MEMBERS),
  membersSchema(AWS_TRUST),
  v.transform((trust): AwsTrust => {
    const aws: AwsTrust = {
      provider: 'aws',
      sts_endpoint: trust.sts_endpoint,
      role_arns: trust.role_arns,
      key_type: trust.key_type,
    };
    if (trust.audience !== undefined) aws.audience = trust.audience;
    return aws;
  }),
);

/**
 * The members of a JWT trust, each with its schema, checked in this order;
 * the key set's members only for presence here ({@link jwtKeySourceSchema}
 * checks them once exactly one is given).
 */
const JWT_TRUST = {
  provider: v.picklist(JWT_TRUST_PROVIDERS),
  key_type: keyTypeSchema,
  issuer: nonEmptyStringSchema('must not be empty'),
  audience: nonEmptyStringSchema('must not be empty'),
  subjects: nonEmptyStringsSchema('subject'),
  jwks: v.optional(v.unknown()),
  jwks_url: v.optional(v.unknown()),
} satisfies SchemaMembers<JwtTrust>;

/** The members of a JWT trust as messages list them. */
const JWT_MEMBERS = membersInOrder(JWT_TRUST, [
  'provider',
  'issuer',
  'audience',
  'subjects',
  'jwks',
  'jwks_url',
  'key_type',
]);

/**
 * Kubernetes, GCP and Azure: `{provider, issuer, audience, subjects, jwks | jwks_url, key_type}`,
 * with exactly one of `jwks` and `jwks_url`, which {@link jwtKeySourceSchema} then checks.
 */
export const jwtTrustSchema = v.pipe(
  objectSchema,
  knownMembersOnly(JWT_MEMBERS),
  membersSchema(JWT_TRUST),
  // Before the key set itself: with both given, which one is broken matters less than that one is extra.
  v.check(
    (trust) => (trust.jwks === undefined) !== (trust.jwks_url === undefined),
    'give exactly one of "jwks" (an inline key set) and "jwks_url"',
  ),
);

/** Where a JWT trust's keys come from: an inline key set or an http(s) URL. */
export const jwtKeySourceSchema = membersSchema({
  jwks: v.optional(jwksSchema),
  jwks_url: v.optional(httpUrlSchema),
} satisfies SchemaMembers<Pick<JwtTrust, 'jwks' | 'jwks_url'>>);

/**
 * Validates one trust: its provider and key type first, then the members of
 * that provider (see {@link awsTrustSchema}, {@link jwtTrustSchema} and
 * {@link jwtKeySourceSchema}).
 *
 * @throws ValidationError naming the JSON path that is wrong.
 */
export function parseTrustDefinition(value: unknown, path: string): TrustDefinition {
  const { provider } = checkSchema(trustHeadSchema, value, path);
  if (provider === 'aws') return checkSchema(awsTrustSchema, value, path);
  const { issuer, audience, subjects, key_type } = checkSchema(jwtTrustSchema, value, path);
  const { jwks, jwks_url } = checkSchema(jwtKeySourceSchema, value, path);
  const trust: JwtTrust = { provider: provider as JwtTrust['provider'], issuer, audience, subjects, key_type };
  if (jwks !== undefined) trust.jwks = jwks;
  else trust.jwks_url = jwks_url;
  return trust;
}

/** The JSON form of a trust (state file, admin API answers). */
export function serializeTrust(trust: TrustDefinition): JsonValue {
  if (trust.provider === 'aws') {
    const out: { [key: string]: JsonValue } = {
      provider: 'aws',
      sts_endpoint: trust.sts_endpoint,
      role_arns: [...trust.role_arns],
      key_type: trust.key_type,
    };
    if (trust.audience !== undefined) out['audience'] = trust.audience;
    return out;
  }
  const out: { [key: string]: JsonValue } = {
    provider: trust.provider,
    issuer: trust.issuer,
    audience: trust.audience,
    subjects: [...trust.subjects],
  };
  if (trust.jwks !== undefined) out['jwks'] = JSON.parse(JSON.stringify(trust.jwks)) as JsonValue;
  if (trust.jwks_url !== undefined) out['jwks_url'] = trust.jwks_url;
  out['key_type'] = trust.key_type;
  return out;
}
