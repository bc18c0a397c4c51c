/**
 * The operations on a service's contents: trusts, configs, flags and secrets.
 */
import * as v from 'valibot';
import { serializeTrust } from '../../validation/trust-validation.js';
import { OutboundRefusedError } from '../../errors/outbound-refused-error.js';
import type { OutboundPolicy } from '../../outbound/outbound-policy.js';
import { configValueSchema, flagDefinitionSchema, flagPatchSchema, secretWriteSchema } from '../../validation/index.js';
import { awsTrustSchema, jwtTrustSchema } from '../../validation/trust-validation.js';
import { HttpError } from '../../errors/http-error.js';
import { parseVersion } from '../service-routes.js';
import { members, ok, SECRET_KEY_RIGHTS, service, write, type AdminOperation } from '../admin-operation.js';
import { arrayOf, object, ref, REVISION_ANSWER, REVISION_ONLY } from './answer-schemas.js';

/** The operations on a service's contents: trusts, configs, flags and secrets. */
export const CONTENT_OPERATIONS: readonly AdminOperation[] = [
  {
    id: 'listTrusts',
    summary: "Reads a service's workload-identity trusts",
    method: 'GET',
    path: '/services/{slug}/trusts',
    right: 'read',
    target: service,
    input: 'none',
    answer: {
      description: '{"trusts": {name: trust}}',
      success: { 200: object({ trusts: { type: 'object', additionalProperties: ref('Trust') } }) },
    },
    audit: 'none',
    run: async ({ service: found }) =>
      ok({ trusts: Object.fromEntries([...found!.trusts].map(([name, trust]) => [name, serializeTrust(trust)])) }),
  },
  {
    id: 'putTrust',
    summary: 'Sets a workload-identity trust',
    method: 'PUT',
    path: '/services/{slug}/trusts/{name}',
    right: 'keys',
    target: service,
    input: { what: 'a trust (see "Workload identity")', schema: v.union([awsTrustSchema, jwtTrustSchema]) },
    extraRights: (body) =>
      typeof body === 'object' && body !== null && (body as Record<string, unknown>)['key_type'] === 'secret'
        ? SECRET_KEY_RIGHTS
        : [],
    answer: {
      description: '{"revision", "name", "trust"} (the trust with defaults filled in)',
      success: { 200: object({ revision: { type: 'integer' }, name: { type: 'string' }, trust: ref('Trust') }) },
    },
    audit: 'trust.put',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      checkTrustUrls(ctx.outbound, body);
      const trust = await write(ctx, [slug], () => ctx.admin.putTrust(slug, params['name']!, body, principal.name));
      return ok({ revision: ctx.store.service(slug)!.revision, name: params['name']!, trust: serializeTrust(trust) });
    },
  },
  {
    id: 'deleteTrust',
    summary: 'Deletes a trust; its sessions end at once',
    method: 'DELETE',
    path: '/services/{slug}/trusts/{name}',
    right: 'keys',
    target: service,
    input: 'none',
    answer: REVISION_ONLY,
    audit: 'trust.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      await write(ctx, [slug], () => ctx.admin.deleteTrust(slug, params['name']!, principal.name));
      return ok({ revision: ctx.store.service(slug)!.revision });
    },
  },
  {
    id: 'setConfig',
    summary: 'Sets a config value',
    method: 'PUT',
    path: '/services/{slug}/configs/{key}',
    right: 'write',
    target: service,
    input: { what: '{"value": ...}', schema: v.object({ value: configValueSchema }) },
    answer: REVISION_ONLY,
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
    id: 'deleteConfig',
    summary: 'Deletes a config',
    method: 'DELETE',
    path: '/services/{slug}/configs/{key}',
    right: 'write',
    target: service,
    input: 'none',
    answer: REVISION_ONLY,
    audit: 'config.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.deleteConfig(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    id: 'setFlag',
    summary: 'Sets a whole flag',
    method: 'PUT',
    path: '/services/{slug}/flags/{key}',
    right: 'write',
    target: service,
    input: { what: '{"is_enabled", "starts_at"?, "ends_at"?, "ab"?}: the whole flag', schema: flagDefinitionSchema },
    answer: {
      description: '{"revision"}, plus "removed" and "warning" when it dropped members the flag had',
      success: {
        200: object(
          { revision: { type: 'integer' }, removed: arrayOf({ type: 'string' }), warning: { type: 'string' } },
          ['removed', 'warning'],
        ),
      },
    },
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
    id: 'patchFlag',
    summary: 'Changes the members of a flag it names',
    method: 'PATCH',
    path: '/services/{slug}/flags/{key}',
    right: 'write',
    target: service,
    input: { what: 'any of is_enabled, starts_at, ends_at, ab (null removes)', schema: flagPatchSchema },
    answer: {
      description: '{"revision"}; 404 for an unknown flag',
      success: { 200: REVISION_ANSWER },
    },
    audit: 'flag.set',
    run: async ({ ctx, principal, params, body }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.patchFlag(slug, params['key']!, body, principal.name)),
      });
    },
  },
  {
    id: 'deleteFlag',
    summary: 'Deletes a flag',
    method: 'DELETE',
    path: '/services/{slug}/flags/{key}',
    right: 'write',
    target: service,
    input: 'none',
    answer: REVISION_ONLY,
    audit: 'flag.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.deleteFlag(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    id: 'setSecretVersion',
    summary: 'Writes a new version of a secret',
    method: 'PUT',
    path: '/services/{slug}/secrets/{key}',
    right: 'secrets:write',
    target: service,
    input: { what: '{"value", "type"?}', schema: secretWriteSchema },
    answer: {
      description: '{"revision", "key", "type", "version"}',
      success: {
        200: object({
          revision: { type: 'integer' },
          key: { type: 'string' },
          type: { type: 'string', enum: ['text', 'file'] },
          version: { type: 'integer', minimum: 1 },
        }),
      },
    },
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
    id: 'deleteSecretAllVersions',
    summary: 'Deletes a secret, every version',
    method: 'DELETE',
    path: '/services/{slug}/secrets/{key}',
    right: 'secrets:write',
    target: service,
    input: 'none',
    answer: REVISION_ONLY,
    audit: 'secret.delete',
    run: async ({ ctx, principal, params }) => {
      const slug = params['slug']!;
      return ok({
        revision: await write(ctx, [slug], () => ctx.admin.deleteSecret(slug, params['key']!, principal.name)),
      });
    },
  },
  {
    id: 'deleteOneSecretVersion',
    summary: 'Deletes one version of a secret',
    method: 'DELETE',
    path: '/services/{slug}/secrets/{key}/versions/{version}',
    right: 'secrets:write',
    target: service,
    input: 'none',
    answer: REVISION_ONLY,
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
