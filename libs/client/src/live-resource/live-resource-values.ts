/**
 * Reading a live resource's values from the client, at one revision.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { SecretNotFoundError } from '../errors.js';
import type { LiveResourceValues, ResolvedDefinition } from './live-resource-definition.js';
import type { LiveResourceSource } from './live-resource-source.js';

/** The values of one build, with what is needed to compare and redact them. @internal */
export interface ReadValues {
  readonly values: LiveResourceValues;
  /** A digest of every value read (file secrets by version): equal digests build equal instances. */
  readonly fingerprint: string;
  /** The text secret values read, to remove from anything reported about this build. */
  readonly secretValues: readonly string[];
}

/**
 * Reads every value a definition names from the client's current snapshot.
 *
 * @throws SecretNotFoundError - a named secret is absent (or of the other type).
 * @throws PublicKeySecretAccessError | FrontendSecretReadError | SecretsNotAvailableError - secrets cannot be read.
 * @internal
 */
export function readValues(
  source: LiveResourceSource,
  definition: ResolvedDefinition<unknown>,
  signal: AbortSignal,
): ReadValues {
  const revision = source.revision;
  const all = source.configs();
  const configs: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of definition.configs) configs[key] = all.get(key);
  const secrets: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const key of definition.secrets) {
    const value = source.secret(key);
    if (value === null) throw new SecretNotFoundError(key, `text secret "${key}" not found`);
    secrets[key] = value;
  }
  const secretFiles: Record<string, string> = Object.create(null) as Record<string, string>;
  const fileVersions: Record<string, number | undefined> = {};
  for (const key of definition.secretFiles) {
    const path = source.secretFile(key);
    if (path === null) throw new SecretNotFoundError(key, `file secret "${key}" not found`);
    secretFiles[key] = path;
    fileVersions[key] = source.secretInfo(key)?.version;
  }
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([definition.configs.map((k) => configs[k] ?? null), secrets, fileVersions]))
    .digest('base64url');
  return {
    values: Object.freeze({
      configs: Object.freeze(configs),
      secrets: Object.freeze(secrets),
      secretFiles: Object.freeze(secretFiles),
      revision,
      signal,
    }) as LiveResourceValues,
    fingerprint,
    secretValues: Object.values(secrets),
  };
}
