/**
 * The state form of the server's data (PROTOCOL §11 plus the chained
 * `audit`, and per service `revision`, `next_versions`, and secrets with their version history): what
 * the state file holds and what the seed parser reads back into equal data.
 */
import {
  DEFAULT_PROJECT,
  type AbRule,
  type FlagDefinition,
  type JsonValue,
  type ServerData,
  type ServiceData,
  type TenantState,
} from '../domain/model.js';
import { serializeTrust } from '../validation/trust-validation.js';
import { storedApiKey } from '../domain/api-key-hash.js';

/**
 * Writes the server's data in state form, the JSON that
 * {@link parseServerData} reads back into equal data.
 */
export function serializeServerData(data: ServerData): JsonValue {
  const tenant: TenantState = data.tenant;
  const state: { [key: string]: JsonValue } = {
    tenant: {
      overdue_days: tenant.overdue_days,
      ab_addon: tenant.ab_addon,
      quarantined_until: tenant.quarantined_until,
      write_rate_per_minute: tenant.write_rate_per_minute,
    },
    // Written only when there is more than the default project, so state files without projects keep their shape.
    ...([...data.projects.keys()].some((name) => name !== DEFAULT_PROJECT)
      ? {
          projects: Object.fromEntries(
            [...data.projects]
              .filter(([name]) => name !== DEFAULT_PROJECT)
              .map(([name, project]): [string, JsonValue] => [
                name,
                project.created_at === null ? {} : { created_at: project.created_at },
              ]),
          ),
        }
      : {}),
    // fromEntries defines own members, so a key such as `__proto__` stays data.
    services: Object.fromEntries([...data.services].map(([slug, service]) => [slug, serializeService(service)])),
    // Entries are written as they are: their hash covers exactly these members.
    audit: data.audit.map((entry) => ({ ...entry })) as unknown as JsonValue,
    ...(data.access.ended_sessions.size === 0 && data.access.guesses.size === 0
      ? {}
      : {
          access: {
            ended_sessions: Object.fromEntries(data.access.ended_sessions),
            guesses: Object.fromEntries(
              [...data.access.guesses].map(([address, record]): [string, JsonValue] => [address, { ...record }]),
            ),
          },
        }),
    ...(data.tokens.size === 0
      ? {}
      : {
          tokens: Object.fromEntries(
            [...data.tokens].map(([name, token]) => [name, JSON.parse(JSON.stringify(token)) as JsonValue]),
          ),
        }),
  };
  return state;
}

function serializeService(service: ServiceData): JsonValue {
  return {
    ...(service.project === DEFAULT_PROJECT ? {} : { project: service.project }),
    kind: service.kind,
    keys: service.keys.map(storedApiKey) as unknown as JsonValue,
    revoked_keys: service.revoked_keys.map(storedApiKey) as unknown as JsonValue,
    revision: service.revision,
    configs: Object.fromEntries(service.configs),
    flags: Object.fromEntries([...service.flags].map(([key, flag]) => [key, serializeFlag(flag)])),
    secrets: Object.fromEntries(
      [...service.secrets].map(([key, secret]) => [
        key,
        {
          type: secret.type,
          versions: secret.versions.map((v) => ({ version: v.version, value: v.value, created_at: v.created_at })),
        },
      ]),
    ),
    next_versions: Object.fromEntries(service.next_versions),
    // Written only when there are some, so state files of services without trusts keep their shape.
    ...(service.trusts.size === 0
      ? {}
      : { trusts: Object.fromEntries([...service.trusts].map(([name, trust]) => [name, serializeTrust(trust)])) }),
    ...(service.data_keys.length === 0 ? {} : { data_keys: service.data_keys.map((k) => ({ ...k })) }),
  };
}

/** A flag in state form (and as the admin API shows it): `is_enabled`, `starts_at`, `ends_at`, `ab` when set. */
export function serializeFlag(flag: FlagDefinition): JsonValue {
  const out: { [key: string]: JsonValue } = {
    is_enabled: flag.is_enabled,
    starts_at: flag.starts_at,
    ends_at: flag.ends_at,
  };
  if (flag.ab !== undefined) out['ab'] = serializeAbRule(flag.ab);
  return out;
}

function serializeAbRule(rule: AbRule): JsonValue {
  return {
    percentage: rule.percentage,
    salt: rule.salt,
    cohorts: rule.cohorts.map((cohort) => ({
      conditions: cohort.conditions.map((c) => ({ attribute: c.attribute, op: c.op, values: [...c.values] })),
      percentage: cohort.percentage,
    })),
  };
}
