import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  holds,
  requireRight,
  seesAuditEntry,
  seesProject,
  seesService,
  visibleService,
  withinPrincipal,
  type AdminPrincipal,
} from '../access/admin-principal.js';
import { DEFAULT_PROJECT, type AdminRight } from '../domain/model.js';
import { NotFoundError } from '../domain/not-found-error.js';
import { serializeTrust } from '../domain/trust-validation.js';
import { parseTokenRequest } from '../validation/index.js';
import { guessAdminToken, tooManyGuesses } from './admin-token.js';
import { readAuditPage } from './audit-route.js';
import { HttpError } from './http-error.js';
import { objectBody, parseBody } from './request-bodies.js';
import { decodeSegment, readJsonBody, sendJsonPayload } from './http-io.js';
import type { ServerContext } from './server-context.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import { OutboundRefusedError } from '../outbound/outbound-refused-error.js';
import { parseVersion } from './service-routes.js';

/** The right each change of a service's contents needs, by `<method> <collection>[/<sub>]`. */
const SERVICE_ROUTE_RIGHTS: Readonly<Record<string, AdminRight>> = {
  'DELETE keys': 'keys',
  'PUT trusts': 'keys',
  'DELETE trusts': 'keys',
  'PUT configs': 'write',
  'DELETE configs': 'write',
  'PUT flags': 'write',
  'PATCH flags': 'write',
  'DELETE flags': 'write',
  'PUT secrets': 'secrets:write',
  'DELETE secrets': 'secrets:write',
  'DELETE secrets/versions': 'secrets:write',
};

/**
 * Serves the admin API under `/admin/v1/` (PROTOCOL §10), which stands in for
 * the management console. It answers at any host, behind an admin token:
 * the owner token, or a scoped token that sees only its projects or
 * services (`404` for the others) and holds only its rights (`403` for the
 * rest). The web console's own calls come with the principal of its
 * session (`principal`), checked before.
 */
export async function handleAdminRoute(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
  { principal: given }: { principal?: AdminPrincipal } = {},
): Promise<void> {
  const principal = given ?? checkAdminToken(ctx, req);
  const actor = principal.name;
  const method = req.method ?? 'GET';
  const [, , resource, rawSlug, collection, rawKey, sub, rawVersion, ...rest] = segments; // 'admin', 'v1', ...
  const { store, admin } = ctx;
  const need = (right: AdminRight, what: string): void => requireRight(principal, right, what);
  const unscoped = (what: string): void => {
    // What spans every project (the tenant, sealing keys) is for tokens that see every project.
    if (principal.scope !== undefined)
      throw new HttpError(403, 'forbidden', `${what} needs a token scoped to every project`);
  };

  if (resource === 'tenant' && rawSlug === undefined) {
    if (method === 'GET') {
      need('read', 'reading the tenant');
      return await answer(ctx, res, 200, { tenant: store.tenant });
    }
    if (method === 'PUT') {
      need('admin', 'changing the tenant');
      unscoped('changing the tenant');
      const body = await readJsonBody(req);
      return await answer(ctx, res, 200, { tenant: await write(ctx, 'all', () => admin.setTenant(body, actor)) });
    }
  }
  if (resource === 'audit' && rawSlug === undefined && method === 'GET') {
    need('read', 'reading the audit');
    return await answer(
      ctx,
      res,
      200,
      readAuditPage(ctx, req, (entry) => seesAuditEntry(principal, store, entry)),
    );
  }
  if (resource === 'audit' && rawSlug === 'head' && collection === undefined && method === 'GET') {
    need('read', 'reading the audit head');
    // The head covers every entry: only a token that sees them all may keep it.
    unscoped('reading the audit head');
    const last = store.data.audit.at(-1);
    if (last === undefined) throw new NotFoundError('the audit is empty: it has no head yet');
    return await answer(ctx, res, 200, { hash: last.hash, position: last.seq, at: last.at });
  }
  if (resource === 'sealing' && rawSlug === undefined && method === 'GET') {
    need('admin', 'reading the sealing keys');
    unscoped('reading the sealing keys');
    return await answer(ctx, res, 200, ctx.sealing.status());
  }
  if (resource === 'root-key' && rawSlug === 'rotate' && collection === undefined && method === 'POST') {
    need('admin', 'rotating the root key');
    unscoped('rotating the root key');
    const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
    const rootKey = body['root_key'];
    if (rootKey !== undefined && typeof rootKey !== 'string') throw HttpError.invalid('root_key: must be a string');
    return await answer(ctx, res, 200, await ctx.sealing.rotateRootKey(rootKey, actor));
  }
  if (resource === 'projects') {
    if (rawSlug === undefined && method === 'GET') {
      need('read', 'listing projects');
      return await answer(ctx, res, 200, {
        projects: [...store.data.projects]
          .filter(([name]) => seesProject(principal, name, store))
          .map(([name, project]) => ({
            name,
            created_at: project.created_at,
            services: store
              .slugs()
              .filter(
                (slug) => store.service(slug)!.project === name && seesService(principal, slug, store.service(slug)!),
              ),
          })),
      });
    }
    if (rawSlug !== undefined && collection === undefined && method === 'PUT') {
      const name = decodeSegment(rawSlug, 'project');
      need('admin', 'creating a project');
      unscoped('creating a project');
      // A project has no settings yet: the body, when there is one, is an empty JSON object.
      const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
      const unknown = Object.keys(body)[0];
      if (unknown !== undefined) throw HttpError.invalid(`${unknown}: not a member of a project`);
      const created = await write(ctx, [], () => admin.putProject(name, actor));
      return await answer(ctx, res, created ? 201 : 200, { name });
    }
  }
  if (resource === 'tokens') {
    need('admin', 'managing admin tokens');
    if (rawSlug === undefined && method === 'GET') {
      return await answer(ctx, res, 200, {
        tokens: [...store.data.tokens]
          .filter(([, token]) => withinPrincipal(principal, token.rights, token.scope, store))
          .map(([name, token]) => ({
            name,
            scope: token.scope,
            rights: token.rights,
            created_at: token.created_at,
            last_used_at: token.last_used_at,
          })),
      });
    }
    if (rawSlug === undefined && method === 'POST') {
      const request = parseTokenRequest(await readJsonBody(req), 'token');
      // A token never makes one that may do more than itself.
      if (!withinPrincipal(principal, request.rights, request.scope, store)) {
        throw new HttpError(403, 'forbidden', 'a token cannot grant rights or a scope it does not hold itself');
      }
      return await answer(ctx, res, 201, await write(ctx, [], () => admin.createToken(request, actor)));
    }
    if (rawSlug !== undefined && collection === undefined && method === 'DELETE') {
      const name = decodeSegment(rawSlug, 'token');
      const token = store.token(name);
      if (!token || !withinPrincipal(principal, token.rights, token.scope, store)) {
        throw new NotFoundError(`no admin token named "${name}"`);
      }
      await write(ctx, [], () => admin.revokeToken(name, actor));
      return await answer(ctx, res, 200, { revoked: name });
    }
    throw notFound(req);
  }
  if (resource === 'services' && rawSlug === undefined && method === 'GET') {
    need('read', 'listing services');
    return await answer(ctx, res, 200, {
      services: store
        .slugs()
        .filter((slug) => seesService(principal, slug, store.service(slug)!))
        .map((slug) => {
          const service = store.service(slug)!;
          return { slug, kind: service.kind, project: service.project, revision: service.revision };
        }),
    });
  }
  if (resource !== 'services' || rawSlug === undefined || rest.length > 0) throw notFound(req);
  const slug = decodeSegment(rawSlug, 'slug');

  if (collection === undefined && method === 'PUT') {
    const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
    const existing = store.service(slug);
    if (existing) visibleService(principal, store, slug);
    const project = (body['project'] as string | undefined) ?? existing?.project ?? DEFAULT_PROJECT;
    if (typeof project === 'string' && !seesProject(principal, project, store)) {
      throw new NotFoundError(`no project named "${project}"`);
    }
    need('admin', existing ? 'changing a service' : 'creating a service');
    if (principal.scope !== undefined && 'services' in principal.scope && !existing) {
      throw new HttpError(403, 'forbidden', 'a token scoped to services cannot create one');
    }
    return await answer(ctx, res, 200, {
      revision: await write(ctx, [slug], () => admin.putService(slug, body['kind'], actor, body['project'])),
    });
  }
  const service = visibleService(principal, store, slug);

  if (collection === 'audit' && rawKey === undefined && method === 'GET') {
    need('read', 'reading the audit');
    return await answer(ctx, res, 200, { entries: admin.audit(slug) });
  }
  if (collection === 'trusts' && rawKey === undefined && method === 'GET') {
    need('read', 'reading trusts');
    return await answer(ctx, res, 200, {
      trusts: Object.fromEntries([...service.trusts].map(([name, trust]) => [name, serializeTrust(trust)])),
    });
  }
  if (collection === 'keys' && rawKey === undefined && method === 'GET') {
    need('keys', 'listing API keys');
    const list = (revoked: boolean) =>
      (revoked ? service.revoked_keys : service.keys).map((k) => ({
        hash: k.hash,
        hint: k.hint,
        type: k.type,
        revoked,
      }));
    return await answer(ctx, res, 200, { keys: [...list(false), ...list(true)] });
  }
  if (collection === 'keys' && rawKey === undefined && method === 'POST') {
    need('keys', 'creating an API key');
    const type = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object')['type'];
    if (type === 'secret') needSecretKeyRights(principal, 'creating a secret API key');
    return await answer(ctx, res, 201, { key: await write(ctx, [slug], () => admin.createKey(slug, type, actor)) });
  }
  if (collection === 'data-key' && rawKey === 'rotate' && sub === undefined && method === 'POST') {
    need('admin', 'rotating a data key');
    return await answer(ctx, res, 200, await write(ctx, [slug], () => ctx.sealing.rotateDataKey(slug, actor)));
  }
  if (rawKey === undefined) throw notFound(req);

  const key = decodeSegment(rawKey, 'key');
  const route = `${method} ${collection}${sub === undefined ? '' : `/${sub}`}`;
  const right = SERVICE_ROUTE_RIGHTS[route];
  if (right === undefined) throw notFound(req);
  need(right, route.toLowerCase());
  switch (route) {
    case 'DELETE keys':
      return await answer(ctx, res, 200, {
        revision: await write(ctx, [slug], () => admin.revokeKey(slug, key, actor)),
      });
    case 'PUT configs': {
      const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
      if (!('value' in body)) throw HttpError.invalid('value: required (use DELETE to remove a config)');
      return await answer(ctx, res, 200, {
        revision: await write(ctx, [slug], () => admin.setConfig(slug, key, body['value'], actor)),
      });
    }
    case 'PUT trusts': {
      const body = await readJsonBody(req);
      if (isSecretKeyTrust(body)) needSecretKeyRights(principal, 'a trust that hands out secret-key sessions');
      checkTrustUrls(ctx.outbound, body);
      const trust = await write(ctx, [slug], () => admin.putTrust(slug, key, body, actor));
      return await answer(ctx, res, 200, {
        revision: store.service(slug)!.revision,
        name: key,
        trust: serializeTrust(trust),
      });
    }
    case 'DELETE trusts':
      await write(ctx, [slug], () => admin.deleteTrust(slug, key, actor));
      return await answer(ctx, res, 200, { revision: store.service(slug)!.revision });
    case 'DELETE configs':
      return await answer(ctx, res, 200, {
        revision: await write(ctx, [slug], () => admin.deleteConfig(slug, key, actor)),
      });
    case 'PUT flags': {
      const body = await readJsonBody(req);
      const { revision, removed } = await write(ctx, [slug], () => admin.setFlag(slug, key, body, actor));
      if (removed.length === 0) return await answer(ctx, res, 200, { revision });
      return await answer(ctx, res, 200, { revision, removed, warning: replacedWarning(removed) });
    }
    case 'PATCH flags': {
      const body = await readJsonBody(req);
      return await answer(ctx, res, 200, {
        revision: await write(ctx, [slug], () => admin.patchFlag(slug, key, body, actor)),
      });
    }
    case 'DELETE flags':
      return await answer(ctx, res, 200, {
        revision: await write(ctx, [slug], () => admin.deleteFlag(slug, key, actor)),
      });
    case 'PUT secrets': {
      const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
      const result = await write(ctx, [slug], () => admin.setSecret(slug, key, body['value'], body['type'], actor));
      return await answer(ctx, res, 200, result);
    }
    case 'DELETE secrets':
      return await answer(ctx, res, 200, {
        revision: await write(ctx, [slug], () => admin.deleteSecret(slug, key, actor)),
      });
    case 'DELETE secrets/versions': {
      if (rawVersion === undefined) break;
      const version = parseVersion(rawVersion);
      return await answer(ctx, res, 200, {
        revision: await write(ctx, [slug], () => admin.deleteSecretVersion(slug, key, version, actor)),
      });
    }
  }
  throw notFound(req);
}

/**
 * A secret key (or a trust whose sessions act as one) reads every secret
 * value on `/v1/sync` and writes through the service API: minting one takes
 * `secrets:reveal` and `secrets:write` besides `keys`, or `keys` alone would
 * reach what those rights guard.
 */
function needSecretKeyRights(principal: AdminPrincipal, what: string): void {
  requireRight(principal, 'secrets:reveal', what);
  requireRight(principal, 'secrets:write', what);
}

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

/** Whether a trust's body asks for secret-key sessions. */
function isSecretKeyTrust(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>)['key_type'] === 'secret';
}

/** Whether the principal may reveal secret values (the console's "reveal"). */
export function mayReveal(principal: AdminPrincipal): boolean {
  return holds(principal, 'secrets:reveal');
}

/** Runs a change against the latest committed state; resolves once it is committed. */
function write<T>(ctx: ServerContext, slugs: readonly string[] | 'all', run: () => T): Promise<T> {
  return ctx.changes.commit({ slugs, run });
}

/** Answers once every change made so far is durable: the body is rendered first, so it holds nothing that is not. */
async function answer(ctx: ServerContext, res: ServerResponse, status: number, body: unknown): Promise<void> {
  const payload = Buffer.from(JSON.stringify(body));
  await ctx.changes.whenDurable();
  sendJsonPayload(res, status, payload);
}

/** Who the bearer token is; 401 otherwise, 429 while its address must wait. */
function checkAdminToken(ctx: ServerContext, req: IncomingMessage): AdminPrincipal {
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  // No token at all is no guess: refused, and not counted.
  if (given !== undefined) {
    const guess = guessAdminToken(ctx, req, given);
    if (guess.outcome === 'right') return guess.principal;
    if (guess.outcome === 'throttled') throw tooManyGuesses(guess.retryAfterSeconds);
  }
  throw HttpError.unauthorized('the admin API needs "Authorization: Bearer <admin token>"');
}

/** What a `PUT` that left out members the flag had did, in words (the answer's `warning`). */
function replacedWarning(removed: readonly string[]): string {
  const names = removed.join(' and ');
  return (
    `PUT replaces the whole flag: ${names} ${removed.length === 1 ? 'was' : 'were'} not in the body and ` +
    `${removed.length === 1 ? 'is' : 'are'} now removed. PATCH changes only the members it names.`
  );
}

function notFound(req: IncomingMessage): HttpError {
  return HttpError.notFound(`no route ${req.method ?? 'GET'} ${req.url?.split('?')[0] ?? ''}`);
}
