/**
 * The tenant's operations: its settings, the audit, sealing and the root key, projects and admin tokens.
 */
import { seesAuditEntry, seesProject, seesService, withinPrincipal } from '../../auth/admin-principal.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import { parseTokenRequest, tenantPatchSchema } from '../../validation/index.js';
import { readAuditPage } from '../audit-route.js';
import { HttpError } from '../../errors/http-error.js';
import { everything, members, ok, query, visible, write, type AdminOperation } from '../admin-operation.js';
import { arrayOf, object, ref, TOKEN_LISTING } from './answer-schemas.js';

/** The tenant's operations: its settings, the audit, sealing and the root key, projects and admin tokens. */
export const TENANT_OPERATIONS: readonly AdminOperation[] = [
  {
    id: 'getTenant',
    summary: "Reads the tenant's settings",
    method: 'GET',
    path: '/tenant',
    right: 'read',
    target: visible,
    input: 'none',
    answer: {
      description: '{"tenant"}',
      success: { 200: ref('TenantAnswer') },
    },
    audit: 'none',
    run: async ({ ctx }) => ok({ tenant: ctx.store.tenant }),
  },
  {
    id: 'setTenant',
    summary: "Changes the tenant's billing, add-on, quarantine or write rate",
    method: 'PUT',
    path: '/tenant',
    right: 'admin',
    target: everything,
    input: {
      what: 'any of overdue_days, ab_addon, quarantined_until, write_rate_per_minute',
      schema: tenantPatchSchema,
    },
    answer: {
      description: '{"tenant"}',
      success: { 200: ref('TenantAnswer') },
    },
    audit: 'tenant.set',
    run: async ({ ctx, principal, body }) =>
      ok({ tenant: await write(ctx, 'all', () => ctx.admin.setTenant(body, principal.name)) }),
  },
  {
    id: 'readAudit',
    summary: 'Reads one page of the audit, newest first',
    method: 'GET',
    path: '/audit',
    right: 'read',
    target: visible,
    input: 'none',
    query: [
      query('service', 'Only entries of this service'),
      query('key', 'Only entries of this key'),
      query('actor', 'Only entries of this actor'),
      query('since', 'Only entries at or after (RFC 3339)', { type: 'string', format: 'date-time' }),
      query('until', 'Only entries before (RFC 3339)', { type: 'string', format: 'date-time' }),
      query('limit', 'Entries per page (default 100)', { type: 'integer', minimum: 1, maximum: 1000 }),
      query('cursor', 'The `next` of the page before'),
    ],
    answer: {
      description:
        '{"entries": [{seq, at, actor, action, service, key, revision, version?, old?, new?, prev, hash, keyed_by?}], "next"}',
      success: { 200: ref('AuditPage') },
    },
    audit: 'none',
    run: async ({ ctx, req, principal }) =>
      ok(readAuditPage(ctx, req, (entry) => seesAuditEntry(principal, ctx.store, entry))),
  },
  {
    id: 'readAuditHead',
    summary: "Reads the audit's head, to keep outside the server (404 while the audit is empty)",
    method: 'GET',
    path: '/audit/head',
    right: 'read',
    target: everything,
    input: 'none',
    answer: {
      description: '{"hash", "position", "at"} of the latest entry (404 while the audit is empty)',
      success: { 200: ref('AuditHead') },
    },
    audit: 'none',
    run: async ({ ctx }) => {
      const last = ctx.store.data.audit.at(-1);
      if (last === undefined) throw new NotFoundError('the audit is empty: it has no head yet');
      return ok({ hash: last.hash, position: last.seq, at: last.at });
    },
  },
  {
    id: 'getSealing',
    summary: 'Reads the sealing keys in use',
    method: 'GET',
    path: '/sealing',
    right: 'admin',
    target: everything,
    input: 'none',
    answer: {
      description: '{"sealed", "root_key", "data_keys": {slug: id}, "other_root_keys", "missing_root_key"}',
      success: { 200: ref('SealingStatus') },
    },
    audit: 'none',
    run: async ({ ctx }) => ok(ctx.sealing.status()),
  },
  {
    id: 'rotateRootKey',
    summary: 'Rewraps every data key under a new root key',
    method: 'POST',
    path: '/root-key/rotate',
    right: 'admin',
    target: everything,
    input: { what: '{"root_key"?}', schema: 'any-object' },
    answer: {
      description: '{"root_key", "rewrapped"} (409 while a live replica lacks the key)',
      success: { 200: object({ root_key: { type: 'string' }, rewrapped: { type: 'integer', minimum: 0 } }) },
    },
    audit: 'root_key.rotate',
    run: async ({ ctx, principal, body }) => {
      const rootKey = members(body)['root_key'];
      if (rootKey !== undefined && typeof rootKey !== 'string') throw HttpError.invalid('root_key: must be a string');
      return ok(await ctx.sealing.rotateRootKey(rootKey, principal.name));
    },
  },
  {
    id: 'listProjects',
    summary: 'Lists the projects the token sees',
    method: 'GET',
    path: '/projects',
    right: 'read',
    target: visible,
    input: 'none',
    answer: {
      description: '{"projects": [{name, created_at, services}]} (those the token sees, with the services it sees)',
      success: {
        200: object({
          projects: arrayOf(
            object({
              name: { type: 'string' },
              created_at: { type: ['string', 'null'], format: 'date-time', description: 'Null for `default`' },
              services: arrayOf({ type: 'string' }),
            }),
          ),
        }),
      },
    },
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
    id: 'putProject',
    summary: 'Creates a project (200 when it exists)',
    method: 'PUT',
    path: '/projects/{name}',
    right: 'admin',
    target: everything,
    input: { what: '{} (a project has no settings yet)', schema: 'any-object' },
    answer: {
      description: '201 {"name"} (200 when it exists)',
      success: { 200: object({ name: { type: 'string' } }), 201: object({ name: { type: 'string' } }) },
    },
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
    id: 'listTokens',
    summary: 'Lists the admin tokens within the asking token (never a token)',
    method: 'GET',
    path: '/tokens',
    right: 'admin',
    target: visible,
    input: 'none',
    answer: {
      description: '{"tokens": [{name, scope, rights, created_at, last_used_at}]} (those within the asking token)',
      success: { 200: object({ tokens: arrayOf(TOKEN_LISTING) }) },
    },
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
    id: 'createToken',
    summary: 'Mints a scoped admin token, shown once',
    method: 'POST',
    path: '/tokens',
    right: 'admin',
    target: visible,
    input: { what: '{"name", "scope", "rights"}', schema: 'token-request' },
    answer: {
      description: '201 {"name", "token"} (the token, shown once)',
      success: { 201: object({ name: { type: 'string' }, token: { type: 'string' } }) },
    },
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
    id: 'revokeToken',
    summary: 'Revokes an admin token at once',
    method: 'DELETE',
    path: '/tokens/{name}',
    right: 'admin',
    target: visible,
    input: 'none',
    answer: {
      description: '{"revoked"}',
      success: { 200: object({ revoked: { type: 'string' } }) },
    },
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
];
