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
import { arrayOf, KEY_MEMBERS, object, ref, REVISION_ONLY, SECRET_LISTING } from './answer-schemas.js';

/** A service's operations: listing, creating and reading services, their audit trail, API keys and data keys. */
export const SERVICE_OPERATIONS: readonly AdminOperation[] = [
  {
    id: 'listServices',
    summary: 'Lists the services the token sees',
    method: 'GET',
    path: '/services',
    right: 'read',
    target: visible,
    input: 'none',
    answer: {
      description: '{"services": [{slug, kind, project, revision}]} (those the token sees)',
      success: {
        200: object({
          services: arrayOf(
            object({
              slug: { type: 'string' },
              kind: { type: 'string' },
              project: { type: 'string' },
              revision: { type: 'integer' },
            }),
          ),
        }),
      },
    },
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
    id: 'putService',
    summary: 'Creates a service, or changes its kind or project',
    method: 'PUT',
    path: '/services/{slug}',
    right: 'admin',
    // An existing service must be seen; a new one's project must be (checked by the call, from the body).
    target: visible,
    input: { what: '{"kind": "backend", "project"?: "default"}', schema: 'any-object' },
    answer: REVISION_ONLY,
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
    id: 'readSecretTrail',
    summary: "Reads a service's secret trail",
    method: 'GET',
    path: '/services/{slug}/audit',
    right: 'read',
    target: service,
    input: 'none',
    answer: {
      description: '{"entries": [{at, action, key, version, actor}]} (its secret trail)',
      success: { 200: object({ entries: arrayOf(ref('SecretTrailEntry')) }) },
    },
    audit: 'none',
    run: async ({ ctx, params }) => ok({ entries: ctx.admin.audit(params['slug']!) }),
  },
  {
    id: 'getService',
    summary: "Reads a service: its configs, flags, secrets' versions and keys (no secret value, no key)",
    method: 'GET',
    path: '/services/{slug}',
    right: 'read',
    target: service,
    input: 'none',
    answer: {
      description:
        '{"slug", "kind", "project", "revision", "configs", "flags": {key: {…, is_active}}, ' +
        '"secrets": {key: {type, versions: [{version, created_at}]}}, "keys": [{hint, type, revoked}]} (no secret value, no key)',
      success: {
        200: object({
          slug: { type: 'string' },
          kind: { type: 'string' },
          project: { type: 'string' },
          revision: { type: 'integer' },
          configs: { type: 'object', additionalProperties: ref('ConfigValue') },
          flags: { type: 'object', additionalProperties: ref('AdminFlag') },
          secrets: { type: 'object', additionalProperties: SECRET_LISTING },
          keys: arrayOf(object(KEY_MEMBERS)),
        }),
      },
    },
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
    id: 'listKeys',
    summary: "Lists a service's API keys by hash and hint (never a key)",
    method: 'GET',
    path: '/services/{slug}/keys',
    right: 'read',
    target: service,
    input: 'none',
    answer: {
      description: '{"keys": [{hash, hint, type, revoked}]} (never a key)',
      success: { 200: object({ keys: arrayOf(object({ hash: { type: 'string' }, ...KEY_MEMBERS })) }) },
    },
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
    id: 'createKey',
    summary: 'Mints an API key, shown once',
    method: 'POST',
    path: '/services/{slug}/keys',
    right: 'keys',
    target: service,
    input: { what: '{"type": "secret" | "public"}', schema: v.object({ type: keyTypeSchema }) },
    extraRights: (body) => (members(body)['type'] === 'secret' ? SECRET_KEY_RIGHTS : []),
    answer: {
      description: '201 {"key"} (shown once)',
      success: { 201: object({ key: { type: 'string' } }) },
    },
    audit: 'key.create',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      const type = members(body)['type'];
      return ok({ key: await write(ctx, [slug], () => ctx.admin.createKey(slug, type, principal.name)) }, 201);
    },
  },
  {
    id: 'revokeKey',
    summary: 'Revokes an API key (the key, or its hash)',
    method: 'DELETE',
    path: '/services/{slug}/keys/{key}',
    right: 'keys',
    target: service,
    input: 'none',
    answer: REVISION_ONLY,
    audit: 'key.revoke',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.revokeKey(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    id: 'rotateDataKey',
    summary: "Seals a service's secrets under a new data key",
    method: 'POST',
    path: '/services/{slug}/data-key/rotate',
    right: 'admin',
    target: service,
    input: 'none',
    answer: {
      description: '{"data_key"}',
      success: { 200: object({ data_key: { type: 'string' } }) },
    },
    audit: 'data_key.rotate',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok(await write(ctx, [slug], () => ctx.sealing.rotateDataKey(slug, principal.name)));
    },
  },
];
