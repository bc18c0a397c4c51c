/**
 * Every admin operation, declared once (PROTOCOL §10): its method and path
 * under `/admin/v1`, the right it needs and what it reaches (for
 * {@link authorize}), its input, its answer, the audit entry it writes, and
 * the domain call. The admin API's routing, its authorization, the console's
 * proxy of it (`/console/api/admin/v1/...`) and the README's route table
 * are all read from {@link ADMIN_OPERATIONS}; an operation without a right,
 * an audit kind or a README line fails `admin-operations.spec.ts`.
 */
import type { IncomingMessage } from 'node:http';
import * as v from 'valibot';
import {
  seesAuditEntry,
  seesProject,
  seesService,
  withinPrincipal,
  type AdminPrincipal,
} from '../access/admin-principal.js';
import { authorize, type AccessTarget } from '../access/authorize.js';
import { DEFAULT_PROJECT, type AdminRight, type ChangeAction, type ServiceData } from '../domain/model.js';
import { NotFoundError } from '../domain/not-found-error.js';
import { serializeTrust } from '../domain/trust-validation.js';
import { OutboundRefusedError } from '../outbound/outbound-refused-error.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import { serializeFlag } from '../persistence/state-serializer.js';
import {
  configValueSchema,
  flagDefinitionSchema,
  flagPatchSchema,
  keyTypeSchema,
  parseTokenRequest,
  secretWriteSchema,
  tenantPatchSchema,
} from '../validation/index.js';
import { awsTrustSchema, jwtTrustSchema } from '../domain/trust-validation.js';
import { readAuditPage } from './audit-route.js';
import { HttpError } from './http-error.js';
import { readJsonBody } from './http-io.js';
import { objectBody, parseBody } from './request-bodies.js';
import type { ServerContext } from './server-context.js';
import { parseVersion } from './service-routes.js';

/** An HTTP method of the admin API. */
export type AdminMethod = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

/** What one call of an operation has to work with. */
export interface OperationCall {
  readonly ctx: ServerContext;
  readonly req: IncomingMessage;
  readonly principal: AdminPrincipal;
  /** The path's `{name}` members, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The request body, read and parsed as JSON (undefined when empty), once authorization has passed. */
  readonly body: unknown;
  /** The service of a `service` target, seen by the principal. */
  readonly service: ServiceData | undefined;
}

/** What an operation answers: a status and a JSON body, sent once every change made is durable. */
export interface OperationAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One admin operation. */
export interface AdminOperation {
  readonly method: AdminMethod;
  /** Under `/admin/v1`, `{name}` standing for one path segment: `/services/{slug}/configs/{key}`. */
  readonly path: string;
  /** The right it needs ({@link extraRights} may add more for some inputs). */
  readonly right: AdminRight;
  /** What it reaches, from the path: a service, a project, everything, or a list filtered by scope. */
  readonly target: (params: Readonly<Record<string, string>>) => AccessTarget;
  /** The body it takes: `none` (empty, or `{}`), or a JSON body checked against `schema` by the domain call. */
  readonly input: 'none' | { readonly what: string; readonly schema: v.GenericSchema | 'token-request' | 'any-object' };
  /** Rights it needs besides {@link right} for this body (minting a secret key). */
  readonly extraRights?: (body: unknown) => readonly AdminRight[];
  /** What a success answers, in the README's words: status and members. */
  readonly answers: string;
  /** The audit entry a success writes; `none` for reads. */
  readonly audit: ChangeAction | 'none';
  /** The domain call. */
  readonly run: (call: OperationCall) => Promise<OperationAnswer>;
}

/** A minted key or a trust's sessions act as a secret key: they reach what `secrets:reveal` and `secrets:write` guard. */
const SECRET_KEY_RIGHTS: readonly AdminRight[] = ['secrets:reveal', 'secrets:write'];

const service = (params: Readonly<Record<string, string>>): AccessTarget => ({
  kind: 'service',
  slug: params['slug']!,
});
const everything = (): AccessTarget => ({ kind: 'everything' });
const visible = (): AccessTarget => ({ kind: 'visible' });

/** Runs a change against the latest committed state; resolves once it is committed. */
function write<T>(ctx: ServerContext, slugs: readonly string[] | 'all', run: () => T): Promise<T> {
  return ctx.changes.commit({ slugs, run });
}

function ok(body: unknown, status = 200): OperationAnswer {
  return { status, body };
}

function members(body: unknown): Record<string, unknown> {
  return parseBody(objectBody, body ?? {}, 'a JSON object');
}

/** The admin API, one entry per operation. */
export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  {
    method: 'GET',
    path: '/tenant',
    right: 'read',
    target: visible,
    input: 'none',
    answers: '{"tenant"}',
    audit: 'none',
    run: async ({ ctx }) => ok({ tenant: ctx.store.tenant }),
  },
  {
    method: 'PUT',
    path: '/tenant',
    right: 'admin',
    target: everything,
    input: {
      what: 'any of overdue_days, ab_addon, quarantined_until, write_rate_per_minute',
      schema: tenantPatchSchema,
    },
    answers: '{"tenant"}',
    audit: 'tenant.set',
    run: async ({ ctx, principal, body }) =>
      ok({ tenant: await write(ctx, 'all', () => ctx.admin.setTenant(body, principal.name)) }),
  },
  {
    method: 'GET',
    path: '/audit',
    right: 'read',
    target: visible,
    input: 'none',
    answers:
      '{"entries": [{seq, at, actor, action, service, key, revision, version?, old?, new?, prev, hash, keyed_by?}], "next"}',
    audit: 'none',
    run: async ({ ctx, req, principal }) =>
      ok(readAuditPage(ctx, req, (entry) => seesAuditEntry(principal, ctx.store, entry))),
  },
  {
    method: 'GET',
    path: '/audit/head',
    right: 'read',
    target: everything,
    input: 'none',
    answers: '{"hash", "position", "at"} of the latest entry (404 while the audit is empty)',
    audit: 'none',
    run: async ({ ctx }) => {
      const last = ctx.store.data.audit.at(-1);
      if (last === undefined) throw new NotFoundError('the audit is empty: it has no head yet');
      return ok({ hash: last.hash, position: last.seq, at: last.at });
    },
  },
  {
    method: 'GET',
    path: '/sealing',
    right: 'admin',
    target: everything,
    input: 'none',
    answers: '{"sealed", "root_key", "data_keys": {slug: id}, "other_root_keys", "missing_root_key"}',
    audit: 'none',
    run: async ({ ctx }) => ok(ctx.sealing.status()),
  },
  {
    method: 'POST',
    path: '/root-key/rotate',
    right: 'admin',
    target: everything,
    input: { what: '{"root_key"?}', schema: 'any-object' },
    answers: '{"root_key", "rewrapped"} (409 while a live replica lacks the key)',
    audit: 'root_key.rotate',
    run: async ({ ctx, principal, body }) => {
      const rootKey = members(body)['root_key'];
      if (rootKey !== undefined && typeof rootKey !== 'string') throw HttpError.invalid('root_key: must be a string');
      return ok(await ctx.sealing.rotateRootKey(rootKey, principal.name));
    },
  },
  {
    method: 'GET',
    path: '/projects',
    right: 'read',
    target: visible,
    input: 'none',
    answers: '{"projects": [{name, created_at, services}]} (those the token sees, with the services it sees)',
    audit: 'none',
    run: async ({ ctx: { store }, principal }) =>
      ok({
        projects: [...store.data.projects]
          .filter(([name]) => seesProject(principal, name, store))
          .map(([name, project]) => ({
            name,
            created_at: project.created_at,
            services: store.slugs().filter((slug) => {
              const candidate = store.service(slug)!;
              return candidate.project === name && seesService(principal, slug, candidate);
            }),
          })),
      }),
  },
  {
    method: 'PUT',
    path: '/projects/{name}',
    right: 'admin',
    target: everything,
    input: { what: '{} (a project has no settings yet)', schema: 'any-object' },
    answers: '201 {"name"} (200 when it exists)',
    audit: 'project.put',
    run: async ({ ctx, principal, params, body }) => {
      const unknown = Object.keys(members(body))[0];
      if (unknown !== undefined) throw HttpError.invalid(`${unknown}: not a member of a project`);
      const name = params['name']!;
      const created = await write(ctx, [], () => ctx.admin.putProject(name, principal.name));
      return ok({ name }, created ? 201 : 200);
    },
  },
  {
    method: 'GET',
    path: '/tokens',
    right: 'admin',
    target: visible,
    input: 'none',
    answers: '{"tokens": [{name, scope, rights, created_at, last_used_at}]} (those within the asking token)',
    audit: 'none',
    run: async ({ ctx: { store }, principal }) =>
      ok({
        tokens: [...store.data.tokens]
          .filter(([, token]) => withinPrincipal(principal, token.rights, token.scope, store))
          .map(([name, token]) => ({
            name,
            scope: token.scope,
            rights: token.rights,
            created_at: token.created_at,
            last_used_at: token.last_used_at,
          })),
      }),
  },
  {
    method: 'POST',
    path: '/tokens',
    right: 'admin',
    target: visible,
    input: { what: '{"name", "scope", "rights"}', schema: 'token-request' },
    answers: '201 {"name", "token"} (the token, shown once)',
    audit: 'token.create',
    run: async ({ ctx, principal, body }) => {
      const request = parseTokenRequest(body, 'token');
      // A token never makes one that may do more than itself.
      if (!withinPrincipal(principal, request.rights, request.scope, ctx.store)) {
        throw new HttpError(403, 'forbidden', 'a token cannot grant rights or a scope it does not hold itself');
      }
      return ok(await write(ctx, [], () => ctx.admin.createToken(request, principal.name)), 201);
    },
  },
  {
    method: 'DELETE',
    path: '/tokens/{name}',
    right: 'admin',
    target: visible,
    input: 'none',
    answers: '{"revoked"}',
    audit: 'token.revoke',
    run: async ({ ctx, principal, params }) => {
      const name = params['name']!;
      const token = ctx.store.token(name);
      if (!token || !withinPrincipal(principal, token.rights, token.scope, ctx.store)) {
        throw new NotFoundError(`no admin token named "${name}"`);
      }
      await write(ctx, [], () => ctx.admin.revokeToken(name, principal.name));
      return ok({ revoked: name });
    },
  },
  {
    method: 'GET',
    path: '/services',
    right: 'read',
    target: visible,
    input: 'none',
    answers: '{"services": [{slug, kind, project, revision}]} (those the token sees)',
    audit: 'none',
    run: async ({ ctx: { store }, principal }) =>
      ok({
        services: store
          .slugs()
          .filter((slug) => seesService(principal, slug, store.service(slug)!))
          .map((slug) => {
            const { kind, project, revision } = store.service(slug)!;
            return { slug, kind, project, revision };
          }),
      }),
  },
  {
    method: 'PUT',
    path: '/services/{slug}',
    right: 'admin',
    // An existing service must be seen; a new one's project must be (checked by the call, from the body).
    target: visible,
    input: { what: '{"kind": "backend", "project"?: "default"}', schema: 'any-object' },
    answers: '{"revision"}',
    audit: 'service.put',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      const given = members(body);
      const existing = ctx.store.service(slug);
      const what = existing ? 'changing a service' : 'creating a service';
      if (existing) authorize(principal, 'admin', { kind: 'service', slug }, ctx.store, what);
      const project = (given['project'] as string | undefined) ?? existing?.project ?? DEFAULT_PROJECT;
      if (typeof project === 'string')
        authorize(principal, 'admin', { kind: 'project', name: project }, ctx.store, what);
      if (principal.scope !== undefined && 'services' in principal.scope && !existing) {
        throw new HttpError(403, 'forbidden', 'a token scoped to services cannot create one');
      }
      return ok({
        revision: await write(ctx, [slug], () =>
          ctx.admin.putService(slug, given['kind'], principal.name, given['project']),
        ),
      });
    },
  },
  {
    method: 'GET',
    path: '/services/{slug}/audit',
    right: 'read',
    target: service,
    input: 'none',
    answers: '{"entries": [{at, action, key, version, actor}]} (its secret trail)',
    audit: 'none',
    run: async ({ ctx, params }) => ok({ entries: ctx.admin.audit(params['slug']!) }),
  },
  {
    method: 'GET',
    path: '/services/{slug}',
    right: 'read',
    target: service,
    input: 'none',
    answers:
      '{"slug", "kind", "project", "revision", "configs", "flags": {key: {…, is_active}}, ' +
      '"secrets": {key: {type, versions: [{version, created_at}]}}, "keys": [{hint, type, revoked}]} (no secret value, no key)',
    audit: 'none',
    run: async ({ ctx, params, service: found }) => {
      const slug = params['slug']!;
      const { kind, project, revision } = found!;
      const keys = (revoked: boolean) =>
        (revoked ? found!.revoked_keys : found!.keys).map((k) => ({ hint: k.hint, type: k.type, revoked }));
      return ok({
        slug,
        kind,
        project,
        revision,
        configs: Object.fromEntries(found!.configs),
        flags: Object.fromEntries(
          [...found!.flags].map(([key, flag]) => [
            key,
            { ...(serializeFlag(flag) as object), is_active: ctx.store.isActive(slug, key) },
          ]),
        ),
        secrets: Object.fromEntries(
          [...found!.secrets].map(([key, secret]) => [
            key,
            {
              type: secret.type,
              versions: secret.versions.map((v) => ({ version: v.version, created_at: v.created_at })),
            },
          ]),
        ),
        keys: [...keys(false), ...keys(true)],
      });
    },
  },
  {
    method: 'GET',
    path: '/services/{slug}/keys',
    right: 'read',
    target: service,
    input: 'none',
    answers: '{"keys": [{hash, hint, type, revoked}]} (never a key)',
    audit: 'none',
    run: async ({ service: found }) => {
      const list = (revoked: boolean) =>
        (revoked ? found!.revoked_keys : found!.keys).map((k) => ({
          hash: k.hash,
          hint: k.hint,
          type: k.type,
          revoked,
        }));
      return ok({ keys: [...list(false), ...list(true)] });
    },
  },
  {
    method: 'POST',
    path: '/services/{slug}/keys',
    right: 'keys',
    target: service,
    input: { what: '{"type": "secret" | "public"}', schema: v.object({ type: keyTypeSchema }) },
    extraRights: (body) => (members(body)['type'] === 'secret' ? SECRET_KEY_RIGHTS : []),
    answers: '201 {"key"} (shown once)',
    audit: 'key.create',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      const type = members(body)['type'];
      return ok({ key: await write(ctx, [slug], () => ctx.admin.createKey(slug, type, principal.name)) }, 201);
    },
  },
  {
    method: 'DELETE',
    path: '/services/{slug}/keys/{key}',
    right: 'keys',
    target: service,
    input: 'none',
    answers: '{"revision"}',
    audit: 'key.revoke',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.revokeKey(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    method: 'POST',
    path: '/services/{slug}/data-key/rotate',
    right: 'admin',
    target: service,
    input: 'none',
    answers: '{"data_key"}',
    audit: 'data_key.rotate',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok(await write(ctx, [slug], () => ctx.sealing.rotateDataKey(slug, principal.name)));
    },
  },
  {
    method: 'GET',
    path: '/services/{slug}/trusts',
    right: 'read',
    target: service,
    input: 'none',
    answers: '{"trusts": {name: trust}}',
    audit: 'none',
    run: async ({ service: found }) =>
      ok({ trusts: Object.fromEntries([...found!.trusts].map(([name, trust]) => [name, serializeTrust(trust)])) }),
  },
  {
    method: 'PUT',
    path: '/services/{slug}/trusts/{name}',
    right: 'keys',
    target: service,
    input: { what: 'a trust (see "Workload identity")', schema: v.union([awsTrustSchema, jwtTrustSchema]) },
    extraRights: (body) =>
      typeof body === 'object' && body !== null && (body as Record<string, unknown>)['key_type'] === 'secret'
        ? SECRET_KEY_RIGHTS
        : [],
    answers: '{"revision", "name", "trust"} (the trust with defaults filled in)',
    audit: 'trust.put',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      checkTrustUrls(ctx.outbound, body);
      const trust = await write(ctx, [slug], () => ctx.admin.putTrust(slug, params['name']!, body, principal.name));
      return ok({ revision: ctx.store.service(slug)!.revision, name: params['name']!, trust: serializeTrust(trust) });
    },
  },
  {
    method: 'DELETE',
    path: '/services/{slug}/trusts/{name}',
    right: 'keys',
    target: service,
    input: 'none',
    answers: '{"revision"}',
    audit: 'trust.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      await write(ctx, [slug], () => ctx.admin.deleteTrust(slug, params['name']!, principal.name));
      return ok({ revision: ctx.store.service(slug)!.revision });
    },
  },
  {
    method: 'PUT',
    path: '/services/{slug}/configs/{key}',
    right: 'write',
    target: service,
    input: { what: '{"value": ...}', schema: v.object({ value: configValueSchema }) },
    answers: '{"revision"}',
    audit: 'config.set',
    run: async ({ ctx, principal, params, body }) => {
      const given = members(body);
      if (!('value' in given)) throw HttpError.invalid('value: required (use DELETE to remove a config)');
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () =>
          ctx.admin.setConfig(slug, params['key']!, given['value'], principal.name),
        ),
      });
    },
  },
  {
    method: 'DELETE',
    path: '/services/{slug}/configs/{key}',
    right: 'write',
    target: service,
    input: 'none',
    answers: '{"revision"}',
    audit: 'config.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.deleteConfig(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    method: 'PUT',
    path: '/services/{slug}/flags/{key}',
    right: 'write',
    target: service,
    input: { what: '{"is_enabled", "starts_at"?, "ends_at"?, "ab"?}: the whole flag', schema: flagDefinitionSchema },
    answers: '{"revision"}, plus "removed" and "warning" when it dropped members the flag had',
    audit: 'flag.set',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      const { revision, removed } = await write(ctx, [slug], () =>
        ctx.admin.setFlag(slug, params['key']!, body, principal.name),
      );
      if (removed.length === 0) return ok({ revision });
      return ok({ revision, removed, warning: replacedWarning(removed) });
    },
  },
  {
    method: 'PATCH',
    path: '/services/{slug}/flags/{key}',
    right: 'write',
    target: service,
    input: { what: 'any of is_enabled, starts_at, ends_at, ab (null removes)', schema: flagPatchSchema },
    answers: '{"revision"}; 404 for an unknown flag',
    audit: 'flag.set',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.patchFlag(slug, params['key']!, body, principal.name)),
      });
    },
  },
  {
    method: 'DELETE',
    path: '/services/{slug}/flags/{key}',
    right: 'write',
    target: service,
    input: 'none',
    answers: '{"revision"}',
    audit: 'flag.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.deleteFlag(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    method: 'PUT',
    path: '/services/{slug}/secrets/{key}',
    right: 'secrets:write',
    target: service,
    input: { what: '{"value", "type"?}', schema: secretWriteSchema },
    answers: '{"revision", "key", "type", "version"}',
    audit: 'secret.set',
    run: async ({ ctx, principal, params, body }) => {
      const given = members(body);
      const slug = params['slug']!;
      return ok(
        await write(ctx, [slug], () =>
          ctx.admin.setSecret(slug, params['key']!, given['value'], given['type'], principal.name),
        ),
      );
    },
  },
  {
    method: 'DELETE',
    path: '/services/{slug}/secrets/{key}',
    right: 'secrets:write',
    target: service,
    input: 'none',
    answers: '{"revision"}',
    audit: 'secret.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.deleteSecret(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    method: 'DELETE',
    path: '/services/{slug}/secrets/{key}/versions/{version}',
    right: 'secrets:write',
    target: service,
    input: 'none',
    answers: '{"revision"}',
    audit: 'secret.version.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      const version = parseVersion(params['version']!);
      return ok({
        revision: await write(ctx, [slug], () =>
          ctx.admin.deleteSecretVersion(slug, params['key']!, version, principal.name),
        ),
      });
    },
  },
];

/**
 * The URLs a trust makes the server request (`jwks_url`, `sts_endpoint`)
 * must pass the operator's outbound policy: checked here for a clear 400,
 * and again on the address connected to at each request.
 *
 * @throws HttpError 400 naming the member and why.
 */
function checkTrustUrls(outbound: OutboundPolicy, body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  for (const member of ['jwks_url', 'sts_endpoint']) {
    const text = (body as Record<string, unknown>)[member];
    if (typeof text !== 'string' || !URL.canParse(text)) continue; // the trust's own validation names it
    try {
      outbound.checkUrl(new URL(text));
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw HttpError.invalid(`trust.${member}: ${error.message}`, error);
      throw error;
    }
  }
}

/** What a `PUT` that left out members the flag had did, in words (the answer's `warning`). */
function replacedWarning(removed: readonly string[]): string {
  const names = removed.join(' and ');
  return (
    `PUT replaces the whole flag: ${names} ${removed.length === 1 ? 'was' : 'were'} not in the body and ` +
    `${removed.length === 1 ? 'is' : 'are'} now removed. PATCH changes only the members it names.`
  );
}

/** An operation matched to a request path, with its `{name}` members decoded. */
export interface MatchedOperation {
  readonly operation: AdminOperation;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * The operation of `method` whose path matches `segments` (the path under
 * `/admin/v1`, split at `/`, still percent-encoded); undefined when none.
 *
 * @throws HttpError 400 for a segment that is not valid percent-encoding.
 */
export function matchOperation(method: string, segments: readonly string[]): MatchedOperation | undefined {
  for (const operation of ADMIN_OPERATIONS) {
    if (operation.method !== method) continue;
    const params = matchPath(operation.path, segments);
    if (params !== undefined) return { operation, params };
  }
  return undefined;
}

/**
 * The `{name}` members of `segments` (a request path split at `/`, still
 * percent-encoded) under `path` (`/services/{slug}/keys`), decoded; undefined
 * when the path does not match (a `{name}` matches one non-empty segment).
 *
 * @throws HttpError 400 for a member that is not valid percent-encoding.
 */
export function matchPath(path: string, segments: readonly string[]): Readonly<Record<string, string>> | undefined {
  const pattern = path.split('/').slice(1);
  if (pattern.length !== segments.length) return undefined;
  const raw: Array<[string, string]> = [];
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index]!;
    if (part.startsWith('{')) {
      if (segment === '') return undefined;
      raw.push([part.slice(1, -1), segment]);
    } else if (part !== segment) {
      return undefined;
    }
  }
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of raw) params[name] = decodeParam(value, name);
  return params;
}

/** Reads the body an operation takes: JSON, or for one that takes none, nothing (or `{}`). */
export async function readOperationBody(operation: AdminOperation, req: IncomingMessage): Promise<unknown> {
  const body = await readJsonBody(req);
  if (operation.input === 'none') {
    const empty =
      body === undefined ||
      (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
    if (!empty) throw HttpError.invalid(`${operation.method} /admin/v1${operation.path} takes no body`);
  }
  return body;
}

function decodeParam(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw HttpError.invalid(`the ${name} in the path is not valid percent-encoding`);
  }
}
