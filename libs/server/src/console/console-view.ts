import { seesService, type AdminPrincipal } from '../auth/admin-principal.js';
import type { AbRule, ConfigValue, SecretType, TenantState } from '../domain/model.js';
import type { Store } from '../domain/store.js';
import type { StreamHub } from '../domain/stream-hub.js';

/**
 * What the console reads: the server's store and stream hub. This file is the
 * console's only window onto them, so a change to their shape is fixed here.
 */
export interface ConsoleSource {
  readonly store: Store;
  readonly hub: StreamHub;
}

/** One service in the console's list. */
export interface ConsoleServiceSummary {
  slug: string;
  /** The project it belongs to. */
  project: string;
  kind: string;
  revision: number;
  /** `/v1/stream` connections open now for this service. */
  open_streams: number;
}

/** Everything the console's header and service list show; also what the live feed sends. */
export interface ConsoleOverview {
  services: ConsoleServiceSummary[];
  tenant: TenantState;
  /** Whether `/v1` answers 402 now (`overdue_days` above 14). */
  billing_overdue: boolean;
  /** The end of a quarantine in force now, else null. */
  quarantined_until: string | null;
  /** Every open `/v1/stream` connection. */
  open_streams: number;
}

/** A flag as the console shows it: its definition and `is_active` as the server serves it. */
export interface ConsoleFlag {
  is_enabled: boolean;
  starts_at: string | null;
  ends_at: string | null;
  ab: AbRule | null;
  is_active: boolean;
}

/** A secret as the console lists it: never a value. */
export interface ConsoleSecret {
  type: SecretType;
  /** Remaining versions, ascending; the last one is served. */
  versions: Array<{ version: number; created_at: string }>;
}

/** One service in detail, without secret values. */
export interface ConsoleServiceView extends ConsoleServiceSummary {
  configs: Record<string, ConfigValue>;
  flags: Record<string, ConsoleFlag>;
  secrets: Record<string, ConsoleSecret>;
}

/** The service list (of the services `principal` sees, all without one), the tenant and the stream counts. */
export function consoleOverview(source: ConsoleSource, principal?: AdminPrincipal): ConsoleOverview {
  const { store, hub } = source;
  return {
    services: store
      .slugs()
      .filter((slug) => principal === undefined || seesService(principal, slug, store.service(slug)!))
      .map((slug) => summary(source, slug)),
    tenant: { ...store.tenant },
    billing_overdue: store.billingOverdue(),
    quarantined_until: store.quarantinedUntil() ?? null,
    open_streams: hub.stats().streams,
  };
}

/** One service's configs, flags and secret metadata; undefined for an unknown slug. */
export function consoleServiceView(source: ConsoleSource, slug: string): ConsoleServiceView | undefined {
  const service = source.store.service(slug);
  if (!service) return undefined;
  // Null-prototype records: keys come from users, and `__proto__` is a valid key.
  const configs: Record<string, ConfigValue> = Object.create(null) as Record<string, ConfigValue>;
  for (const [key, value] of service.configs) configs[key] = value;
  const flags: Record<string, ConsoleFlag> = Object.create(null) as Record<string, ConsoleFlag>;
  for (const [key, flag] of service.flags) {
    flags[key] = {
      is_enabled: flag.is_enabled,
      starts_at: flag.starts_at,
      ends_at: flag.ends_at,
      ab: flag.ab ?? null,
      is_active: source.store.isActive(slug, key),
    };
  }
  const secrets: Record<string, ConsoleSecret> = Object.create(null) as Record<string, ConsoleSecret>;
  for (const [key, record] of service.secrets) {
    secrets[key] = {
      type: record.type,
      versions: record.versions.map(({ version, created_at }) => ({ version, created_at })),
    };
  }
  return { ...summary(source, slug), configs, flags, secrets };
}

/** The value of one secret version, for the console's explicit "reveal"; undefined when there is none. */
export function revealSecretValue(
  source: ConsoleSource,
  slug: string,
  key: string,
  version: number,
): string | undefined {
  return source.store
    .service(slug)
    ?.secrets.get(key)
    ?.versions.find((v) => v.version === version)?.value;
}

function summary(source: ConsoleSource, slug: string): ConsoleServiceSummary {
  const service = source.store.service(slug)!;
  return {
    slug,
    project: service.project,
    kind: service.kind,
    revision: service.revision,
    open_streams: source.hub.streamsOf(slug),
  };
}
