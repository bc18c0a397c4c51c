/**
 * A service's operations: listing, creating and reading services, their audit trail, API keys and data keys.
 */
import * as v from 'valibot';
import { seesService } from '../../auth/admin-principal.js';
import { authorize } from '../../auth/authorize.js';
import { DEFAULT_PROJECT } from '../../domain/model.js';
import { serializeFlag } from '../../persistence/state-serializer.js';
import { keyTypeSchema } from '../../validation/index.js';
import { HttpError } from '../../errors/http-error.js';
import { members, ok, SECRET_KEY_RIGHTS, service, visible, write, type AdminOperation } from '../admin-operation.js';

/** A service's operations: listing, creating and reading services, their audit trail, API keys and data keys. */
export const SERVICE_OPERATIONS: readonly AdminOperation[] = [
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
];
