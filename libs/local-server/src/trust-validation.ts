/**
 * Validation of workload-identity trusts (PROTOCOL §8), as the seed file, the
 * state file and the admin API give them.
 */
import { appendJsonPath } from './json-path.js';
import type { JsonValue, TrustDefinition, TrustKeyType, TrustProvider } from './model.js';
import {
  describeType,
  parseObject,
  parseString,
  parseStringArray,
  rejectUnknownMembers,
  ValidationError,
} from './validation/index.js';

/** The providers a trust may name. */
export const TRUST_PROVIDERS: ReadonlyArray<TrustProvider> = Object.freeze(['kubernetes', 'aws', 'gcp', 'azure']);

/** Where an AWS trust forwards the signed `GetCallerIdentity` unless told otherwise. */
export const DEFAULT_STS_ENDPOINT = 'https://sts.amazonaws.com';

const JWT_MEMBERS = ['provider', 'issuer', 'audience', 'subjects', 'jwks', 'jwks_url', 'key_type'];
const AWS_MEMBERS = ['provider', 'sts_endpoint', 'role_arns', 'audience', 'key_type'];
const TRUST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]{1,512}$/;

function fail(path: string, problem: string): never {
  throw new ValidationError(path, problem);
}

/** A trust name: 1–64 characters of `[A-Za-z0-9._-]`, starting with a letter or digit. */
export function parseTrustName(value: unknown, path: string): string {
  const name = parseString(value, path);
  if (!TRUST_NAME.test(name))
    fail(path, 'a trust name is 1 to 64 characters of A-Z a-z 0-9 . _ -, starting with a letter or a digit');
  return name;
}

function parseKeyType(value: unknown, path: string): TrustKeyType {
  if (value !== 'secret' && value !== 'public') fail(path, `must be "secret" or "public", got ${describeType(value)}`);
  return value;
}

function parseHttpUrl(value: unknown, path: string): string {
  const text = parseString(value, path);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(path, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(path, `must use http or https, not ${url.protocol}`);
  return text;
}

function parseNonEmptyStrings(value: unknown, path: string, what: string): string[] {
  const list = parseStringArray(value, path);
  if (list.length === 0) fail(path, `must list at least one ${what}`);
  list.forEach((item, index) => {
    if (item === '') fail(appendJsonPath(path, index), `an empty ${what} is not allowed`);
  });
  return [...list];
}

function parseJwks(value: unknown, path: string): { keys: Array<{ [key: string]: JsonValue }> } {
  const object = parseObject(value, path);
  const keys = object['keys'];
  const keysPath = appendJsonPath(path, 'keys');
  if (!Array.isArray(keys) || keys.length === 0) fail(keysPath, 'a JSON Web Key Set needs a non-empty "keys" array');
  keys.forEach((key, index) => {
    const jwk = parseObject(key, appendJsonPath(keysPath, index));
    if (typeof jwk['kty'] !== 'string')
      fail(appendJsonPath(appendJsonPath(keysPath, index), 'kty'), 'every JWK needs a "kty" string');
    if ('d' in jwk || jwk['kty'] === 'oct')
      fail(
        appendJsonPath(keysPath, index),
        'a JWKS for verification holds public keys only (this key is private or symmetric)',
      );
  });
  // A JSON round trip keeps the stored copy independent of the caller's object.
  return JSON.parse(JSON.stringify({ keys })) as { keys: Array<{ [key: string]: JsonValue }> };
}

/**
 * Validates one trust.
 *
 * Kubernetes, GCP and Azure: `{provider, issuer, audience, subjects, jwks | jwks_url, key_type}`.
 * AWS: `{provider: "aws", role_arns, sts_endpoint?, audience?, key_type}`.
 *
 * @throws ValidationError naming the JSON path that is wrong.
 */
export function parseTrustDefinition(value: unknown, path: string): TrustDefinition {
  const object = parseObject(value, path);
  const at = (member: string): string => appendJsonPath(path, member);
  const provider = object['provider'];
  if (typeof provider !== 'string' || !(TRUST_PROVIDERS as ReadonlyArray<string>).includes(provider)) {
    fail(
      at('provider'),
      `must be one of ${TRUST_PROVIDERS.map((p) => `"${p}"`).join(', ')}, got ${describeType(provider)}`,
    );
  }
  const keyType = parseKeyType(object['key_type'], at('key_type'));
  if (provider === 'aws') {
    rejectUnknownMembers(object, AWS_MEMBERS, path);
    const roleArns = parseNonEmptyStrings(object['role_arns'], at('role_arns'), 'role ARN');
    roleArns.forEach((arn, index) => {
      if (!ROLE_ARN.test(arn))
        fail(
          appendJsonPath(at('role_arns'), index),
          'must be an IAM role or user ARN such as "arn:aws:iam::123456789012:role/shop"',
        );
    });
    const trust: TrustDefinition = {
      provider: 'aws',
      sts_endpoint:
        object['sts_endpoint'] === undefined
          ? DEFAULT_STS_ENDPOINT
          : parseHttpUrl(object['sts_endpoint'], at('sts_endpoint')),
      role_arns: roleArns,
      key_type: keyType,
    };
    if (object['audience'] !== undefined) {
      const audience = parseString(object['audience'], at('audience'));
      if (audience === '') fail(at('audience'), 'must not be empty (leave it out to accept any)');
      trust.audience = audience;
    }
    return trust;
  }
  rejectUnknownMembers(object, JWT_MEMBERS, path);
  const issuer = parseString(object['issuer'], at('issuer'));
  if (issuer === '') fail(at('issuer'), 'must not be empty');
  const audience = parseString(object['audience'], at('audience'));
  if (audience === '') fail(at('audience'), 'must not be empty');
  const subjects = parseNonEmptyStrings(object['subjects'], at('subjects'), 'subject');
  const hasJwks = object['jwks'] !== undefined;
  const hasUrl = object['jwks_url'] !== undefined;
  if (hasJwks === hasUrl) fail(path, 'give exactly one of "jwks" (an inline key set) and "jwks_url"');
  const trust: TrustDefinition = {
    provider: provider as 'kubernetes' | 'gcp' | 'azure',
    issuer,
    audience,
    subjects,
    key_type: keyType,
  };
  if (hasJwks) trust.jwks = parseJwks(object['jwks'], at('jwks'));
  else trust.jwks_url = parseHttpUrl(object['jwks_url'], at('jwks_url'));
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
