/**
 * The tenant's operations: its settings, the audit, sealing and the root key, projects and admin tokens.
 */
import { seesAuditEntry, seesProject, seesService, withinPrincipal } from '../../auth/admin-principal.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import { parseTokenRequest, tenantPatchSchema } from '../../validation/index.js';
import { readAuditPage } from '../audit-route.js';
import { HttpError } from '../../errors/http-error.js';
import { everything, members, ok, visible, write, type AdminOperation } from '../admin-operation.js';

/** The tenant's operations: its settings, the audit, sealing and the root key, projects and admin tokens. */
export const TENANT_OPERATIONS: readonly AdminOperation[] = [
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
];
