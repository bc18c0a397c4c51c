/**
 * Seed and state files (PROTOCOL §11): reading either into {@link ServerData}.
 *
 * The seed form is what people write: secrets as `{type, value}` or
 * `{type, versions: ["v1", "v2"]}`. The state form, written by
 * `serializeServerData`, has the same top-level shape plus per service
 * `revision`, `audit`, `next_versions`, and secrets as
 * `{type, versions: [{version, value, created_at}]}`. Both forms are accepted
 * everywhere; a state file is a valid seed.
 *
 * Every value is checked by a valibot schema (`validation/`,
 * `state-entries.ts`, `trust-validation.ts`); this file walks the maps whose
 * keys come from the user (into `Map`s, never plain objects: valibot's
 * `record` would drop a `__proto__` key) and checks what spans members: a
 * key in one service only, versions ascending, `next_versions` past them.
 */
import { readFileSync } from 'node:fs';
import { describeFsError } from '../errors/fs-errors.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json/json-depth.js';
import { appendJsonPath } from '../json/json-path.js';
import {
  DEFAULT_PROJECT,
  DEFAULT_TENANT,
  emptyAccessState,
  type AccessState,
  type AdminTokenRecord,
  type ProjectRecord,
  type ApiKeyRecord,
  type AuditEntry,
  type ConfigValue,
  type FlagDefinition,
  type SecretRecord,
  type SecretVersion,
  type ServerData,
  type ServiceData,
  type TenantState,
  type TrustDefinition,
} from '../domain/model.js';
import { describeJsonSyntaxError } from '../json/json-syntax-error.js';
import { SeedError } from './seed-error.js';
import { SECRET_MEMBERS, accessStateSchema, projectSchema, seedSchema, serviceSchema } from './seed-schema.js';
import type * as v from 'valibot';
import { chainAuditEntry } from '../domain/audit-chain.js';
import {
  apiKeyListSchema,
  auditRecordListSchema,
  auditTrailSchema,
  adminTokenRecordSchema,
  dataKeyListSchema,
  secretVersionListSchema,
  secretVersionSchema,
} from '../validation/state-entries.js';
import { parseTrustDefinition, parseTrustName } from '../validation/trust-validation.js';
import {
  ValidationError,
  checkSchema,
  formatTimestamp,
  membersInOrder,
  parseConfigValue,
  parseFlagDefinition,
  parseInteger,
  parseKey,
  parseObject,
  parseSecretType,
  parseSecretValue,
  parseServiceKind,
  parseSlug,
  parseTenantPatch,
  parseProjectName,
  parseTokenName,
  rejectUnknownMembers,
  timestampSchema,
} from '../validation/index.js';

/** Options of {@link parseServerData} and the functions built on it. */
export interface ParseServerDataOptions {
  /**
   * The `created_at` given to secret versions written in seed form (which
   * carries no timestamps).
   * @default new Date()
   */
  now?: Date;
  /**
   * Runs on the parsed JSON before it is checked: the sealing codec opens a
   * sealed state's values here, in place.
   */
  openSealed?: (json: unknown) => void;
}

// The members are the published schema's (seed-schema.ts); only the order their messages list them in is the parser's.
// `$schema` names the JSON Schema for editors (seeds/vane-seed.schema.json); the parser ignores it.
const TOP_MEMBERS = membersInOrder(seedSchema.entries, [
  'tenant',
  'projects',
  'services',
  'audit',
  'tokens',
  'access',
  'sealing',
  '$schema',
]);
const SERVICE_MEMBERS = membersInOrder(serviceSchema.entries, [
  'project',
  'kind',
  'keys',
  'revoked_keys',
  'configs',
  'flags',
  'secrets',
  'next_versions',
  'revision',
  'audit',
  'trusts',
  'data_keys',
]);
const PROJECT_MEMBERS = Object.keys(projectSchema.entries);

/**
 * Validates a parsed seed or state file and builds the server's data.
 * Defaults: tenant members from `DEFAULT_TENANT`, `kind` `backend`, no keys,
 * `revision` 1, `next_versions` one past each secret's highest version.
 * Unknown members of the file, the tenant, a service, a secret or an audit
 * entry are refused (a typo must not drop data); flag definitions ignore
 * them, as the admin API does.
 *
 * @param source - the file name that starts every error message.
 * @throws SeedError naming the JSON path that is wrong.
 */
export function parseServerData(json: unknown, source: string, options: ParseServerDataOptions = {}): ServerData {
  // Checked first, without recursion: the checks below recurse into config values.
  if (exceedsJsonDepth(json, MAX_JSON_DEPTH)) {
    throw new SeedError(source, '', `arrays and objects are nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  try {
    return buildServerData(json, formatTimestamp(options.now ?? new Date()));
  } catch (error) {
    if (error instanceof ValidationError) {
      throw new SeedError(source, error.path, error.problem, { cause: error });
    }
    throw error;
  }
}

/**
 * Parses the text of a seed or state file. A JSON syntax error is reported
 * with its line and column only, never with the surrounding text (it could
 * be a secret).
 *
 * @throws SeedError naming `source`.
 */
export function parseServerDataJson(text: string, source: string, options: ParseServerDataOptions = {}): ServerData {
  // Editors on some systems save a byte-order mark, which JSON.parse refuses.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    // Never V8's SyntaxError as the cause: its message quotes the text around the error, which could be a secret.
    const problem = describeJsonSyntaxError(body);
    throw new SeedError(source, '', problem, { cause: new SyntaxError(problem) });
  }
  options.openSealed?.(json);
  return parseServerData(json, source, options);
}

/**
 * Reads and parses a seed or state file.
 *
 * @throws SeedError naming `file` when it cannot be read, is not JSON (with
 *   line and column) or breaks a rule (with the JSON path); the underlying
 *   error is its `cause`.
 */
export function readServerDataFile(file: string, options: ParseServerDataOptions = {}): ServerData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SeedError(file, '', `cannot read the file (${describeFsError(error)})`, { cause: error });
  }
  return parseServerDataJson(text, file, options);
}

function buildServerData(json: unknown, now: string): ServerData {
  const root = parseObject(json, '');
  rejectUnknownMembers(root, TOP_MEMBERS, '');
  const tenant: TenantState = {
    ...DEFAULT_TENANT,
    ...(root['tenant'] === undefined ? {} : parseTenantPatch(root['tenant'], 'tenant')),
  };
  const services = new Map<string, ServiceData>();
  const projects = new Map<string, ProjectRecord>([[DEFAULT_PROJECT, { created_at: null }]]);
  for (const [name, value] of optionalEntries(root['projects'], 'projects')) {
    const path = appendJsonPath('projects', name);
    parseProjectName(name, path);
    const project = parseObject(value, path);
    rejectUnknownMembers(project, PROJECT_MEMBERS, path);
    projects.set(name, {
      created_at:
        project['created_at'] === undefined
          ? null
          : checkSchema(timestampSchema, project['created_at'], appendJsonPath(path, 'created_at')),
    });
  }
  const tokens = new Map<string, AdminTokenRecord>();
  for (const [name, value] of optionalEntries(root['tokens'], 'tokens')) {
    const path = appendJsonPath('tokens', name);
    parseTokenName(name, path);
    tokens.set(name, checkSchema(adminTokenRecordSchema, value, path));
  }
  const audit = root['audit'] === undefined ? [] : checkSchema(auditRecordListSchema, root['audit'], 'audit');
  const servicesJson = root['services'] === undefined ? {} : parseObject(root['services'], 'services');
  // Where each key was first seen, so a second occurrence can point to it without echoing the key.
  const keyOwners = new Map<string, string>();
  for (const [slug, serviceJson] of Object.entries(servicesJson)) {
    const path = appendJsonPath('services', slug);
    parseSlug(slug, path);
    const { service, secretTrail } = buildService(serviceJson, path, now, keyOwners);
    // A service names its project; a seed need not list it under "projects".
    if (!projects.has(service.project)) projects.set(service.project, { created_at: null });
    services.set(slug, service);
    // A state written before the audit was chained kept a secret trail per service: it joins the chain.
    for (const entry of secretTrail) {
      audit.push(
        chainAuditEntry(audit[audit.length - 1], {
          at: entry.at,
          actor: entry.actor,
          action: entry.action,
          service: slug,
          key: entry.key,
          revision: null,
          version: entry.version,
        }),
      );
    }
  }
  const access =
    root['access'] === undefined
      ? emptyAccessState()
      : parseAccessState(checkSchema(accessStateSchema, root['access'], 'access'));
  return { tenant, services, audit, projects, tokens, access };
}

function buildService(
  json: unknown,
  path: string,
  now: string,
  keyOwners: Map<string, string>,
): { service: ServiceData; secretTrail: AuditEntry[] } {
  const object = parseObject(json, path);
  rejectUnknownMembers(object, SERVICE_MEMBERS, path);
  const at = (member: string): string => appendJsonPath(path, member);

  const keys = buildKeys(object['keys'], at('keys'), keyOwners);
  const revokedKeys = buildKeys(object['revoked_keys'], at('revoked_keys'), keyOwners);

  const configs = new Map<string, ConfigValue>();
  for (const [key, value] of optionalEntries(object['configs'], at('configs'))) {
    const valuePath = appendJsonPath(at('configs'), key);
    parseKey(key, valuePath, 'config');
    configs.set(key, parseConfigValue(value, valuePath));
  }

  const flags = new Map<string, FlagDefinition>();
  for (const [key, value] of optionalEntries(object['flags'], at('flags'))) {
    const flagPath = appendJsonPath(at('flags'), key);
    parseKey(key, flagPath, 'flag');
    flags.set(key, parseFlagDefinition(value, flagPath));
  }

  const secrets = new Map<string, SecretRecord>();
  for (const [key, value] of optionalEntries(object['secrets'], at('secrets'))) {
    const secretPath = appendJsonPath(at('secrets'), key);
    parseKey(key, secretPath, 'secret');
    secrets.set(key, buildSecret(value, secretPath, now));
  }

  const nextVersions = new Map<string, number>();
  for (const [key, value] of optionalEntries(object['next_versions'], at('next_versions'))) {
    const versionPath = appendJsonPath(at('next_versions'), key);
    parseKey(key, versionPath, 'secret');
    nextVersions.set(key, parseInteger(value, versionPath, 1));
  }
  for (const [key, secret] of secrets) {
    const minimum = secret.versions[secret.versions.length - 1]!.version + 1;
    const next = nextVersions.get(key);
    if (next === undefined) {
      nextVersions.set(key, minimum);
    } else if (next < minimum) {
      fail(
        appendJsonPath(at('next_versions'), key),
        `must be at least ${minimum} (one past the secret's highest version), got ${next}`,
      );
    }
  }

  const trusts = new Map<string, TrustDefinition>();
  for (const [name, value] of optionalEntries(object['trusts'], at('trusts'))) {
    const trustPath = appendJsonPath(at('trusts'), name);
    parseTrustName(name, trustPath);
    trusts.set(name, parseTrustDefinition(value, trustPath));
  }

  const secretTrail = object['audit'] === undefined ? [] : checkSchema(auditTrailSchema, object['audit'], at('audit'));

  const service: ServiceData = {
    project: object['project'] === undefined ? DEFAULT_PROJECT : parseProjectName(object['project'], at('project')),
    kind: object['kind'] === undefined ? 'backend' : parseServiceKind(object['kind'], at('kind')),
    keys,
    revoked_keys: revokedKeys,
    configs,
    flags,
    secrets,
    next_versions: nextVersions,
    revision: object['revision'] === undefined ? 1 : parseInteger(object['revision'], at('revision'), 0),
    trusts,
    data_keys:
      object['data_keys'] === undefined ? [] : checkSchema(dataKeyListSchema, object['data_keys'], at('data_keys')),
  };
  return { service, secretTrail };
}

function buildKeys(json: unknown, path: string, keyOwners: Map<string, string>): ApiKeyRecord[] {
  if (json === undefined) return [];
  return checkSchema(apiKeyListSchema, json, path).map((key, index) => {
    const keyPath = appendJsonPath(path, index);
    const owner = keyOwners.get(key.hash);
    if (owner !== undefined) {
      fail(
        keyPath,
        `this key already appears at ${owner}; a key belongs to one service and is either active or revoked`,
      );
    }
    keyOwners.set(key.hash, keyPath);
    return key;
  });
}

function buildSecret(json: unknown, path: string, now: string): SecretRecord {
  const object = parseObject(json, path);
  rejectUnknownMembers(object, SECRET_MEMBERS, path);
  const type = parseSecretType(object['type'], appendJsonPath(path, 'type'));
  const value = object['value'];
  const versions = object['versions'];
  if (value !== undefined && versions !== undefined) fail(path, 'has both "value" and "versions"; give one');
  if (value !== undefined) {
    return {
      type,
      versions: [{ version: 1, value: parseSecretValue(value, appendJsonPath(path, 'value')), created_at: now }],
    };
  }
  const versionsPath = appendJsonPath(path, 'versions');
  if (versions === undefined) fail(path, 'needs "value" (a string) or "versions" (an array)');
  const list = checkSchema(secretVersionListSchema, versions, versionsPath);
  const seedForm = typeof list[0] === 'string';
  const parsed = list.map((element, index): SecretVersion => {
    const elementPath = appendJsonPath(versionsPath, index);
    if (seedForm) {
      return { version: index + 1, value: parseSecretValue(element, elementPath), created_at: now };
    }
    if (typeof element === 'string') {
      fail(elementPath, 'must be an object like the versions before it ({"version", "value", "created_at"})');
    }
    return checkSchema(secretVersionSchema, element, elementPath);
  });
  parsed.forEach((version, index) => {
    const previous = parsed[index - 1];
    if (previous !== undefined && version.version <= previous.version) {
      fail(
        appendJsonPath(appendJsonPath(versionsPath, index), 'version'),
        `versions must ascend; ${version.version} follows ${previous.version}`,
      );
    }
  });
  return { type, versions: parsed };
}

function optionalEntries(json: unknown, path: string): Array<[string, unknown]> {
  return json === undefined ? [] : Object.entries(parseObject(json, path));
}

function fail(path: string, problem: string): never {
  throw new ValidationError(path, problem);
}

/** The state form's access member, checked, as the data holds it. */
function parseAccessState(access: v.InferOutput<typeof accessStateSchema>): AccessState {
  return {
    ended_sessions: new Map(Object.entries(access.ended_sessions ?? {})),
    guesses: new Map(Object.entries(access.guesses ?? {}).map(([address, record]) => [address, { ...record }])),
  };
}
