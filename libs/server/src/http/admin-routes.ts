import type { IncomingMessage, ServerResponse } from 'node:http';
import { serializeTrust } from '../domain/trust-validation.js';
import { guessAdminToken, tooManyGuesses } from './admin-token.js';
import { HttpError } from './http-error.js';
import { objectBody, parseBody } from './request-bodies.js';
import { decodeSegment, readJsonBody, sendJsonPayload } from './http-io.js';
import type { ServerContext } from './server-context.js';
import { parseVersion } from './service-routes.js';
import { readAuditPage } from './audit-route.js';
import { OWNER_ACTOR } from '../domain/actors.js';

/**
 * Serves the admin API under `/admin/v1/` (PROTOCOL §10), which stands in for
 * the management console. It answers at any host, behind the admin token,
 * except for the web console's own calls (`viaConsole`): its session, checked
 * before, stands in for the token.
 */
export async function handleAdminRoute(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
  { viaConsole = false }: { viaConsole?: boolean } = {},
): Promise<void> {
  if (!viaConsole) checkAdminToken(ctx, req);
  const actor = OWNER_ACTOR;
  const method = req.method ?? 'GET';
  const [, , resource, rawSlug, collection, rawKey, sub, rawVersion, ...rest] = segments; // 'admin', 'v1', ...
  const { store, admin } = ctx;

  if (resource === 'tenant' && rawSlug === undefined) {
    if (method === 'GET') return await answer(ctx, res, 200, { tenant: store.tenant });
    if (method === 'PUT') {
      return await answer(ctx, res, 200, { tenant: admin.setTenant(await readJsonBody(req), actor) });
    }
  }
  if (resource === 'audit' && rawSlug === undefined && method === 'GET') {
    return await answer(
      ctx,
      res,
      200,
      readAuditPage(ctx, req, () => true),
    );
  }
  if (resource === 'sealing' && rawSlug === undefined && method === 'GET') {
    return await answer(ctx, res, 200, ctx.sealing.status());
  }
  if (resource === 'root-key' && rawSlug === 'rotate' && collection === undefined && method === 'POST') {
    const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
    const given = body['root_key'];
    if (given !== undefined && typeof given !== 'string') throw HttpError.invalid('root_key: must be a string');
    return await answer(ctx, res, 200, await ctx.sealing.rotateRootKey(given, actor));
  }
  if (resource === 'services' && rawSlug === undefined && method === 'GET') {
    return await answer(ctx, res, 200, {
      services: store.slugs().map((slug) => {
        const service = store.service(slug)!;
        return { slug, kind: service.kind, revision: service.revision };
      }),
    });
  }
  if (resource !== 'services' || rawSlug === undefined || rest.length > 0) throw notFound(req);
  const slug = decodeSegment(rawSlug, 'slug');

  if (collection === undefined && method === 'PUT') {
    const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
    return await answer(ctx, res, 200, { revision: admin.putService(slug, body['kind'], actor) });
  }
  if (collection === 'audit' && rawKey === undefined && method === 'GET') {
    return await answer(ctx, res, 200, { entries: admin.audit(slug) });
  }
  if (collection === 'trusts' && rawKey === undefined && method === 'GET') {
    const service = store.requireService(slug);
    return await answer(ctx, res, 200, {
      trusts: Object.fromEntries([...service.trusts].map(([name, trust]) => [name, serializeTrust(trust)])),
    });
  }
  if (collection === 'data-key' && rawKey === 'rotate' && sub === undefined && method === 'POST') {
    return await answer(ctx, res, 200, ctx.sealing.rotateDataKey(slug, actor));
  }
  if (collection === 'keys' && rawKey === undefined && method === 'POST') {
    const type = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object')['type'];
    return await answer(ctx, res, 201, { key: admin.createKey(slug, type, actor) });
  }
  if (rawKey === undefined) throw notFound(req);

  const key = decodeSegment(rawKey, 'key');
  switch (`${method} ${collection}${sub === undefined ? '' : `/${sub}`}`) {
    case 'DELETE keys':
      return await answer(ctx, res, 200, { revision: admin.revokeKey(slug, key, actor) });
    case 'PUT configs': {
      const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
      if (!('value' in body)) throw HttpError.invalid('value: required (use DELETE to remove a config)');
      return await answer(ctx, res, 200, { revision: admin.setConfig(slug, key, body['value'], actor) });
    }
    case 'PUT trusts': {
      const trust = admin.putTrust(slug, key, await readJsonBody(req), actor);
      return await answer(ctx, res, 200, {
        revision: store.service(slug)!.revision,
        name: key,
        trust: serializeTrust(trust),
      });
    }
    case 'DELETE trusts':
      admin.deleteTrust(slug, key, actor);
      return await answer(ctx, res, 200, { revision: store.service(slug)!.revision });
    case 'DELETE configs':
      return await answer(ctx, res, 200, { revision: admin.deleteConfig(slug, key, actor) });
    case 'PUT flags': {
      const { revision, removed } = admin.setFlag(slug, key, await readJsonBody(req), actor);
      if (removed.length === 0) return await answer(ctx, res, 200, { revision });
      return await answer(ctx, res, 200, { revision, removed, warning: replacedWarning(removed) });
    }
    case 'PATCH flags':
      return await answer(ctx, res, 200, { revision: admin.patchFlag(slug, key, await readJsonBody(req), actor) });
    case 'DELETE flags':
      return await answer(ctx, res, 200, { revision: admin.deleteFlag(slug, key, actor) });
    case 'PUT secrets': {
      const body = parseBody(objectBody, (await readJsonBody(req)) ?? {}, 'a JSON object');
      const result = admin.setSecret(slug, key, body['value'], body['type'], actor);
      return await answer(ctx, res, 200, result);
    }
    case 'DELETE secrets':
      return await answer(ctx, res, 200, { revision: admin.deleteSecret(slug, key, actor) });
    case 'DELETE secrets/versions':
      if (rawVersion === undefined) break;
      return await answer(ctx, res, 200, {
        revision: admin.deleteSecretVersion(slug, key, parseVersion(rawVersion), actor),
      });
  }
  throw notFound(req);
}

/** Answers once every change made so far is durable: the body is rendered first, so it holds nothing that is not. */
async function answer(ctx: ServerContext, res: ServerResponse, status: number, body: unknown): Promise<void> {
  const payload = Buffer.from(JSON.stringify(body));
  await ctx.changes.whenDurable();
  sendJsonPayload(res, status, payload);
}

/** Lets the request through with the right bearer token; 401 otherwise, 429 while its address must wait. */
function checkAdminToken(ctx: ServerContext, req: IncomingMessage): void {
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  // No token at all is no guess: refused, and not counted.
  if (given !== undefined) {
    const guess = guessAdminToken(ctx, req, given);
    if (guess.outcome === 'right') return;
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
