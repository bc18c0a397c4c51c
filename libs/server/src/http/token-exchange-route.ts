import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TrustProvider } from '../domain/model.js';
import { HttpError } from '../errors/http-error.js';
import { parseBody, tokenExchangeBody } from './request-bodies.js';
import { readJsonBody, sendJson, slugFromHost } from './http-io.js';
import type { ServerContext } from './server-context.js';

/**
 * `POST /v1/auth/token-exchange` (PROTOCOL §8): verifies a platform identity
 * against the service's trusts of that provider, in name order, and issues a
 * session for the first that accepts it. No key header is needed. Every
 * refusal is `401 unauthorized`; messages never echo the token.
 */
export async function tokenExchange(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const host = req.headers.host;
  if (!host) throw HttpError.invalid('the Host header is required: it names the service');
  const slug = slugFromHost(host);
  const service = ctx.store.service(slug);
  if (!service) throw HttpError.notFound(`no service named "${slug.slice(0, 63)}"`);
  const { provider, token } = parseBody(
    tokenExchangeBody,
    await readJsonBody(req),
    'a JSON object {"provider", "token"}',
  );
  const trusts = [...service.trusts]
    .filter(([, trust]) => trust.provider === provider)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (trusts.length === 0) throw HttpError.unauthorized(`service "${slug}" trusts no ${provider} identity`);
  const reasons: string[] = [];
  for (const [name, trust] of trusts) {
    const verdict =
      trust.provider === 'aws'
        ? await ctx.awsVerifier.verify(token, trust)
        : await ctx.jwtVerifier.verify(token, trust);
    if ('subject' in verdict) {
      const session = await ctx.sessions.issue({
        slug,
        trust: name,
        subject: verdict.subject,
        keyType: trust.key_type,
      });
      await ctx.changes.whenDurable();
      return sendJson(res, 200, { token: session.token, expires_at: session.expiresAt });
    }
    reasons.push(`${name}: ${verdict.refused}`);
  }
  throw HttpError.unauthorized(
    `no ${provider as TrustProvider} trust of service "${slug}" accepts this identity (${reasons.join('; ')})`,
  );
}
