import { createHash } from 'node:crypto';
import type { ServiceData } from '../domain/model.js';
import { serializeTrust } from '../validation/trust-validation.js';

/**
 * A digest of what a replica serves for one service: its revision, kind,
 * project, keys, configs, flags with the `is_active` they were published
 * with, trusts, and its secrets' types and version numbers. Two replicas
 * that applied the same changes compute the same digest (members are
 * sorted, so insertion order does not count).
 *
 * Secret values are left out on purpose: the digest goes into the database,
 * and a hash of a short secret can be guessed there. A changed secret always
 * comes with a new version number, so a missed or doubled secret write still
 * shows.
 *
 * @param isActive - the `is_active` this replica published for a flag.
 * @returns 32 hex digits (128 bits of SHA-256).
 */
export function serviceDigest(service: ServiceData, isActive: (flagKey: string) => boolean): string {
  const served = {
    revision: service.revision,
    kind: service.kind,
    project: service.project,
    keys: service.keys.map((k) => [k.hash, k.type]),
    revoked_keys: service.revoked_keys.map((k) => k.hash),
    configs: Object.fromEntries(service.configs),
    flags: Object.fromEntries([...service.flags].map(([key, flag]) => [key, { ...flag, is_active: isActive(key) }])),
    secrets: Object.fromEntries(
      [...service.secrets].map(([key, secret]) => [
        key,
        { type: secret.type, versions: secret.versions.map((v) => [v.version, v.created_at]) },
      ]),
    ),
    next_versions: Object.fromEntries(service.next_versions),
    trusts: Object.fromEntries([...service.trusts].map(([name, trust]) => [name, serializeTrust(trust)])),
    data_keys: service.data_keys.map((k) => k.id),
  };
  return createHash('sha256').update(canonicalJson(served)).digest('hex').slice(0, 32);
}

/** JSON with every object's members sorted by name, so equal values give equal text. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
