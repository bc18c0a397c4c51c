/**
 * One change to the server's data, as the store makes it and the journal
 * records it. Every record states what a thing is after the change (never
 * "add one"), so replaying a record that is already reflected in the data
 * leaves the data as it is: compaction may die between writing the state file
 * and removing the journal it covers.
 */
import { chainAuditEntry } from './audit-chain.js';
import { apiKeyRecord, storedApiKey } from './api-key-hash.js';
import {
  DEFAULT_PROJECT,
  type AdminTokenRecord,
  type ProjectRecord,
  type ApiKeyRecord,
  type AuditEntry,
  type AuditRecord,
  type DataKeyRecord,
  type GuessRecord,
  type ConfigValue,
  type FlagDefinition,
  type SecretType,
  type SecretVersion,
  type ServerData,
  type ServiceData,
  type TenantState,
  type TrustDefinition,
} from './model.js';
import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/** A change that moves a service to `revision`. */
interface RevisionChange {
  readonly slug: string;
  readonly revision: number;
}

/**
 * The audit entry a change made, carried in the same record so that one
 * journal append (or one database transaction) holds both. Absent only for
 * what nobody did: a flag's schedule turning it, a restart.
 */
interface Audited {
  readonly audit?: AuditRecord | LegacyAuditEntry;
}

/** A secret change of a journal written before the audit was chained: its entry has no `seq` or `hash`. */
interface LegacyAuditEntry extends AuditEntry {
  readonly seq?: undefined;
}

/** A secret change. */
interface SecretChange extends RevisionChange {
  readonly key: string;
}

/** Change stage 1: one change of the server's data as the domain makes it (secret values in clear), folded in by `applyStateChange`. */
export type StateChange = Audited &
  (
    | ({
        readonly type: 'service';
        readonly kind: string;
        /** Absent in journals written before projects: the default project. */
        readonly project?: string;
      } & RevisionChange)
    | { readonly type: 'project'; readonly name: string; readonly project: ProjectRecord }
    | { readonly type: 'token'; readonly name: string; readonly token: AdminTokenRecord | null }
    | { readonly type: 'token.used'; readonly name: string; readonly last_used_at: string }
    | {
        /** A console logout: kept until the session would have expired; older ones are dropped at `at_ms`. */
        readonly type: 'session.end';
        readonly id_hash: string;
        readonly expires_at_ms: number;
        readonly at_ms: number;
      }
    | {
        /** A wrong admin-token guess: the address's count after it; guesses before `forget_before_ms` are dropped. */
        readonly type: 'guess.wrong';
        readonly address: string;
        readonly guesses: GuessRecord;
        readonly forget_before_ms: number;
      }
    | {
        readonly type: 'key';
        readonly slug: string;
        /** The key's stored record (a journal written before keys were hashed holds the key itself). */
        readonly key: ApiKeyRecord | string;
        readonly revoked: boolean;
      }
    | {
        /** The root key that wraps every data key from now on (after a rotation); the state itself holds no other trace. */
        readonly type: 'root_key';
        readonly root_key: string;
      }
    | {
        readonly type: 'data_key';
        readonly slug: string;
        /** Added, or (same id, wrapped again by another root key) replaced. */
        readonly data_key: DataKeyRecord;
      }
    | { readonly type: 'trust'; readonly slug: string; readonly name: string; readonly trust: TrustDefinition | null }
    | ({ readonly type: 'config'; readonly key: string; readonly value: ConfigValue } & RevisionChange)
    | ({ readonly type: 'config.delete'; readonly key: string } & RevisionChange)
    | ({ readonly type: 'flag'; readonly key: string; readonly flag: FlagDefinition | null } & RevisionChange)
    | ({
        readonly type: 'secret.version';
        readonly secret_type: SecretType;
        readonly version: SecretVersion;
        readonly next_version: number;
      } & SecretChange)
    | ({ readonly type: 'secret.version.delete'; readonly version: number } & SecretChange)
    | ({ readonly type: 'secret.delete' } & SecretChange)
    | { readonly type: 'tenant'; readonly tenant: TenantState }
    | ({ readonly type: 'revision' } & RevisionChange)
  );

/** A journal record names a service the data does not hold: the files do not belong together. */
export class StateChangeError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_STATE_MISMATCH' as const;

  /** @param message - names the change and the missing service. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}

/** The changes of data outside any one service: the tenant, root keys, projects, tokens, the access ledgers. */
type DataWideChange = Extract<
  StateChange,
  { type: 'tenant' | 'root_key' | 'project' | 'token' | 'session.end' | 'guess.wrong' | 'token.used' }
>;

const DATA_WIDE: ReadonlySet<StateChange['type']> = new Set<DataWideChange['type']>([
  'tenant',
  'root_key',
  'project',
  'token',
  'session.end',
  'guess.wrong',
  'token.used',
]);

/** Whether `change` is of data outside any one service. */
function isDataWide(change: StateChange): change is DataWideChange {
  return DATA_WIDE.has(change.type);
}

/** Applies one change to `data` in place. */
export function applyStateChange(data: ServerData, change: StateChange): void {
  if (isDataWide(change)) applyDataWideChange(data, change);
  else applyServiceChange(data, change);
}

/** Applies a change of data outside any one service. */
function applyDataWideChange(data: ServerData, change: DataWideChange): void {
  if (change.type === 'tenant') {
    Object.assign(data.tenant, change.tenant);
    addAudit(data, change, null, null);
    return;
  }
  if (change.type === 'root_key') {
    addAudit(data, change, null, null);
    return;
  }
  if (change.type === 'project') {
    if (!data.projects.has(change.name)) data.projects.set(change.name, change.project);
    addAudit(data, change, null, null);
    return;
  }
  if (change.type === 'token') {
    if (change.token) data.tokens.set(change.name, change.token);
    else data.tokens.delete(change.name);
    addAudit(data, change, null, null);
    return;
  }
  if (change.type === 'session.end') {
    const ended = data.access.ended_sessions;
    for (const [id, expiresAtMs] of ended) if (expiresAtMs <= change.at_ms) ended.delete(id);
    ended.set(change.id_hash, change.expires_at_ms);
    return;
  }
  if (change.type === 'guess.wrong') {
    const guesses = data.access.guesses;
    for (const [address, record] of guesses)
      if (record.last_failure_ms < change.forget_before_ms) guesses.delete(address);
    guesses.set(change.address, { ...change.guesses });
    return;
  }
  if (change.type === 'token.used') {
    const token = data.tokens.get(change.name);
    if (token && (token.last_used_at ?? '') < change.last_used_at) token.last_used_at = change.last_used_at;
    return;
  }
}

/** Applies a change of one service (creating it for a `service` change), moving it to the change's revision. */
function applyServiceChange(data: ServerData, change: Exclude<StateChange, DataWideChange>): void {
  if (change.type === 'service' && !data.services.has(change.slug)) {
    data.services.set(change.slug, emptyService(change.kind, change.project));
  }
  const service = data.services.get(change.slug);
  if (!service) throw new StateChangeError(`a ${change.type} change names service "${change.slug}", which is missing`);
  switch (change.type) {
    case 'service':
      service.kind = change.kind;
      service.project = change.project ?? DEFAULT_PROJECT;
      break;
    case 'key':
      applyKey(
        service,
        typeof change.key === 'string' ? storedApiKey(apiKeyRecord(change.key)) : change.key,
        change.revoked,
      );
      addAudit(data, change, change.slug, null);
      return;
    case 'data_key': {
      const index = service.data_keys.findIndex((k) => k.id === change.data_key.id);
      if (index === -1) service.data_keys.push(change.data_key);
      else service.data_keys[index] = change.data_key;
      addAudit(data, change, change.slug, null);
      return;
    }
    case 'trust':
      if (change.trust) service.trusts.set(change.name, change.trust);
      else service.trusts.delete(change.name);
      addAudit(data, change, change.slug, null);
      return;
    case 'config':
      service.configs.set(change.key, change.value);
      break;
    case 'config.delete':
      service.configs.delete(change.key);
      break;
    case 'flag':
      if (change.flag) service.flags.set(change.key, change.flag);
      else service.flags.delete(change.key);
      break;
    case 'secret.version': {
      const record = service.secrets.get(change.key);
      if (!record) service.secrets.set(change.key, { type: change.secret_type, versions: [change.version] });
      else {
        record.type = change.secret_type;
        if (!record.versions.some((v) => v.version === change.version.version)) {
          record.versions.push(change.version);
          // Versions stay ascending (the last is current) even when an older record is replayed.
          record.versions.sort((a, b) => a.version - b.version);
        }
      }
      service.next_versions.set(change.key, change.next_version);
      break;
    }
    case 'secret.version.delete': {
      const record = service.secrets.get(change.key);
      if (record) {
        record.versions = record.versions.filter((v) => v.version !== change.version);
        if (record.versions.length === 0) service.secrets.delete(change.key);
      }
      break;
    }
    case 'secret.delete':
      service.secrets.delete(change.key);
      break;
    case 'revision':
      break;
  }
  service.revision = change.revision;
  addAudit(data, change, change.slug, change.revision);
}

/** A service with nothing in it yet, at revision 1. */
export function emptyService(kind: string, project: string = DEFAULT_PROJECT): ServiceData {
  return {
    project,
    kind,
    keys: [],
    revoked_keys: [],
    configs: new Map(),
    flags: new Map(),
    secrets: new Map(),
    next_versions: new Map(),
    revision: 1,
    trusts: new Map(),
    data_keys: [],
  };
}

function applyKey(service: ServiceData, key: ApiKeyRecord, revoked: boolean): void {
  const known = (list: ApiKeyRecord[]): boolean => list.some((k) => k.hash === key.hash);
  if (!revoked) {
    // A key already revoked stays revoked: this record is older than the revocation.
    if (!known(service.keys) && !known(service.revoked_keys)) service.keys.push(key);
    return;
  }
  service.keys = service.keys.filter((k) => k.hash !== key.hash);
  if (!known(service.revoked_keys)) service.revoked_keys.push(key);
}

/**
 * Appends the change's audit entry unless the data already holds it (a
 * record replayed onto a state file that includes it). An entry of a journal
 * written before the audit was chained joins the chain here.
 */
function addAudit(data: ServerData, change: StateChange, slug: string | null, revision: number | null): void {
  const entry = change.audit;
  if (entry === undefined) return;
  const last = data.audit[data.audit.length - 1];
  if (entry.seq !== undefined) {
    if (last === undefined || entry.seq > last.seq) data.audit.push(entry);
    return;
  }
  data.audit.push(
    chainAuditEntry(last, {
      at: entry.at,
      actor: entry.actor,
      action: entry.action,
      service: slug,
      key: entry.key,
      revision,
      version: entry.version,
    }),
  );
}
