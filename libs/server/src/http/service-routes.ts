import type { IncomingMessage, ServerResponse } from 'node:http';
import { evaluateAbFlag } from '../domain/ab-evaluation.js';
import { dictionary } from '../domain/dictionary.js';
import { appendJsonPath } from '../json/json-path.js';
import { redactKey, type KeyIdentity } from '../domain/store.js';
import { describeType } from '../validation/index.js';
import { HttpError } from '../errors/http-error.js';
import { evaluateAbBody, objectBody, parseBody } from './request-bodies.js';
import { decodeSegment, ifNoneMatchMatches, readJsonBody, sendJson, slugFromHost } from './http-io.js';
import type { ServerContext } from './server-context.js';
import { tokenExchange } from './token-exchange-route.js';
import { ResponseStreamSink } from './response-stream-sink.js';

interface Caller {
  slug: string;
  /** A static key, or a session standing in for one (its `key` is `session:<trust>:<subject>`, never a usable key). */
  identity: KeyIdentity;
  /** Who the audit trail names: the key redacted, or `workload:<trust>`. */
  actor: string;
  /** For a session: when it expires, in epoch milliseconds. */
  expiresAtMs?: number;
}

/** Prefix of the identity `key` of a session, so streams and rate limits can tell sessions apart. */
export const SESSION_IDENTITY_PREFIX = 'session:';

/**
 * Serves the service interface under `/v1/` (PROTOCOL §5–§7, §9). Routes are
 * matched first, so an unknown route is a 404 whoever asks.
 */
export async function handleServiceRoute(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
): Promise<void> {
  const method = req.method ?? 'GET';
  const [, first, second, third, fourth, ...rest] = segments; // segments[0] is 'v1'
  if (method === 'GET' && first === 'sync' && second === undefined)
    return sync(ctx, req, res, await authorize(ctx, req));
  if (method === 'GET' && first === 'stream' && second === undefined)
    return await stream(ctx, req, res, await authorize(ctx, req));
  if (method === 'POST' && first === 'flags' && second === 'evaluate-ab' && third === undefined) {
    return evaluateAb(ctx, req, res, await authorize(ctx, req));
  }
  if (method === 'POST' && first === 'auth' && second === 'token-exchange' && third === undefined)
    return tokenExchange(ctx, req, res);
  if (first === 'secrets' && second !== undefined && rest.length === 0) {
    if (third === undefined && method === 'PUT') return setSecret(ctx, req, res, second);
    if (third === undefined && method === 'DELETE') return deleteSecret(ctx, req, res, second);
    if (third === 'versions' && fourth !== undefined && method === 'DELETE') {
      return deleteSecretVersion(ctx, req, res, second, fourth);
    }
  }
  throw HttpError.notFound(`no route ${method} ${req.url?.split('?')[0] ?? ''}`);
}

/**
 * Finds the service from `Host`, checks the credential (an API key, or a
 * session as `Authorization: Bearer`, PROTOCOL §2), then the tenant's
 * billing and quarantine.
 */
async function authorize(ctx: ServerContext, req: IncomingMessage): Promise<Caller> {
  const host = ctx.proxy.host(req);
  if (!host) throw HttpError.invalid('the Host header is required: it names the service');
  const slug = slugFromHost(host);
  if (!ctx.store.service(slug)) throw HttpError.notFound(`no service named "${slug.slice(0, 63)}"`);
  const key = req.headers['x-service-api-key'];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  let caller: Caller;
  if (typeof key === 'string' && key !== '') {
    const identity = ctx.store.authenticate(slug, key);
    if (!identity)
      throw HttpError.unauthorized(
        `the API key is not valid for service "${slug}" (unknown, revoked, or another service's key)`,
      );
    caller = { slug, identity, actor: redactKey(key) };
  } else if (bearer !== undefined) {
    // A common first mistake: the API key sent the way most APIs take one. Say so (never echoing the key).
    if (/^sv[sp]_/.test(bearer))
      throw HttpError.unauthorized(
        'an API key goes in the X-Service-API-Key header, not in "Authorization: Bearer" (which carries workload-identity sessions only)',
      );
    const session = await ctx.sessions.verify(bearer, slug);
    if (!session)
      throw HttpError.unauthorized(
        `the session token is not valid for service "${slug}" (expired, forged, or issued for another service); exchange a new one`,
      );
    const trust = ctx.store.trust(slug, session.trust);
    // A session ends with its trust, and never acts above the key type the trust grants now.
    if (!trust || trust.key_type !== session.keyType)
      throw HttpError.unauthorized(`the trust that issued this session no longer grants it; exchange a new one`);
    caller = {
      slug,
      // Keyed by trust and subject, not by session: re-exchanging does not reset the write rate limit.
      identity: {
        slug,
        key: `${SESSION_IDENTITY_PREFIX}${session.trust}:${session.subject}`,
        type: session.keyType,
        revoked: false,
      },
      actor: `workload:${session.trust}`,
      expiresAtMs: session.expiresAtMs,
    };
  } else {
    throw HttpError.unauthorized(
      'send the service API key in the X-Service-API-Key header, or a session as "Authorization: Bearer <token>"',
    );
  }
  if (ctx.store.billingOverdue()) {
    throw new HttpError(402, 'billing_overdue', 'the account has invoices overdue by more than 14 days');
  }
  const until = ctx.store.quarantinedUntil();
  if (until) {
    const seconds = Math.max(1, Math.ceil((Date.parse(until) - ctx.clock.now()) / 1000));
    throw new HttpError(
      429,
      'quarantined',
      `the caller is quarantined until ${until}`,
      { until },
      { 'retry-after': String(seconds) },
    );
  }
  return caller;
}

async function sync(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> {
  // Rendered from what is committed (on a fleet: whatever a write in flight is doing); on a state file, held
  // until what it shows is durable.
  await ctx.changes.inProcessWritesSettled?.(caller.slug);
  const snapshot = ctx.renderer.snapshot(caller.slug, caller.identity.type);
  await ctx.changes.readable();
  const headers = { etag: snapshot.etag, 'cache-control': 'no-cache' };
  if (ifNoneMatchMatches(req.headers['if-none-match'], snapshot.etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(snapshot.body.length),
  });
  res.end(snapshot.body);
}

async function stream(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> {
  // A stream opened after a write was answered starts at or after it, as a sync would; it sends only what is durable.
  await ctx.changes.inProcessWritesSettled?.(caller.slug);
  await ctx.changes.readable().catch(() => undefined);
  const header = req.headers['last-event-id'];
  const lastEventId =
    typeof header === 'string' && /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : undefined;
  req.socket.setNoDelay(true);
  req.socket.setKeepAlive(true);
  // The last revision streams were sent, which is durable; the store may be ahead by changes still being written.
  const sent = (): number => ctx.hub.revision(caller.slug) ?? ctx.store.service(caller.slug)!.revision;
  let holdAheadMs = 0;
  // On a fleet a client may come from a replica ahead of this one: read what is committed, then judge. Still
  // ahead once read, it is from another database, and resyncs at once as it would on a single server.
  if (lastEventId !== undefined && lastEventId > sent()) {
    const caughtUp = await ctx.changes.behind();
    // A client that hung up meanwhile has no stream to open (the hub would count it forever).
    if (req.socket.destroyed) return;
    if (!caughtUp) holdAheadMs = ctx.changes.aheadHoldMs;
  }
  ctx.hub.open(
    { slug: caller.slug, audience: caller.identity.type, key: caller.identity.key, sink: new ResponseStreamSink(res) },
    sent(),
    lastEventId,
    holdAheadMs,
  );
  if (caller.expiresAtMs !== undefined) {
    // A stream must not outlive the session that opened it: end it at expiry; the client re-exchanges and reconnects.
    const expiry = ctx.clock.setTimer(() => res.end(), caller.expiresAtMs - ctx.clock.now());
    res.once('close', () => expiry.cancel());
  }
}

async function evaluateAb(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  caller: Caller,
): Promise<void> {
  if (!ctx.store.tenant.ab_addon) {
    throw new HttpError(403, 'addon_inactive', 'the A/B testing add-on is not active for this account');
  }
  const body = await readJsonBody(req);
  const { keys, user_id: userId } = parseBody(evaluateAbBody, body, 'a JSON object with keys, user_id and attributes');
  // Read from the body itself: valibot's records drop a member named `__proto__`, which is a valid attribute name.
  const attributes = (body as { attributes?: Record<string, unknown> }).attributes;
  const context = dictionary<string>();
  if (attributes !== undefined) {
    for (const [name, value] of Object.entries(attributes)) {
      if (typeof value !== 'string') {
        throw HttpError.invalid(
          `${appendJsonPath('attributes', name)}: expected a string, received ${describeType(value)}`,
        );
      }
      context[name] = value;
    }
  }
  await ctx.changes.inProcessWritesSettled?.(caller.slug);
  const view = ctx.renderer.view(caller.slug);
  const results = dictionary<boolean>();
  for (const key of keys) {
    const flag = view.service.flags.get(key);
    results[key] = flag ? evaluateAbFlag(key, flag, view.isActive(key), userId, context) : false;
  }
  await ctx.changes.readable();
  sendJson(res, 200, { results });
}

/** Secret writes: a secret key of a non-frontend service, within the per-key write rate. */
async function authorizeSecretWrite(ctx: ServerContext, req: IncomingMessage): Promise<Caller> {
  const caller = await authorize(ctx, req);
  if (caller.identity.type !== 'secret')
    throw HttpError.unauthorized('a public key (or a session with a public key type) cannot write secrets');
  if (ctx.store.service(caller.slug)!.kind === 'frontend') {
    throw HttpError.invalid(`service "${caller.slug}" is of kind frontend and holds no secrets`);
  }
  const verdict = await ctx.limiter.take(caller.identity.key, ctx.store.tenant.write_rate_per_minute, ctx.clock.now());
  if (!verdict.allowed) {
    throw new HttpError(
      429,
      'rate_limited',
      `too many secret writes with this key; retry in ${verdict.retryAfterSeconds} s`,
      {},
      { 'retry-after': String(verdict.retryAfterSeconds) },
    );
  }
  return caller;
}

async function setSecret(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, rawKey: string): Promise<void> {
  const caller = await authorizeSecretWrite(ctx, req);
  const key = decodeSegment(rawKey, 'secret key');
  const { value, type } = parseBody(objectBody, await readJsonBody(req), 'a JSON object {"value", "type"}');
  const result = await ctx.changes.commit({
    slugs: [caller.slug],
    run: () => ctx.admin.setSecret(caller.slug, key, value, type, caller.actor),
  });
  sendJson(res, 200, { key: result.key, type: result.type, version: result.version });
}

async function deleteSecret(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  rawKey: string,
): Promise<void> {
  const caller = await authorizeSecretWrite(ctx, req);
  const key = decodeSegment(rawKey, 'secret key');
  await ctx.changes.commit({ slugs: [caller.slug], run: () => ctx.admin.deleteSecret(caller.slug, key, caller.actor) });
  res.writeHead(204);
  res.end();
}

async function deleteSecretVersion(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  rawKey: string,
  rawVersion: string,
): Promise<void> {
  const caller = await authorizeSecretWrite(ctx, req);
  const version = parseVersion(rawVersion);
  const key = decodeSegment(rawKey, 'secret key');
  await ctx.changes.commit({
    slugs: [caller.slug],
    run: () => ctx.admin.deleteSecretVersion(caller.slug, key, version, caller.actor),
  });
  res.writeHead(204);
  res.end();
}

/** A secret version in a path: a 1-based integer. */
export function parseVersion(raw: string): number {
  if (!/^[1-9]\d{0,14}$/.test(raw))
    throw HttpError.invalid('version: expected a positive integer (versions are 1-based)');
  return Number(raw);
}
