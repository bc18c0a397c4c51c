/**
 * Verification of an AWS identity: the client's SigV4-signed
 * `sts:GetCallerIdentity` (PROTOCOL §8) is forwarded to the trust's STS
 * endpoint, which checks the signature; the ARN it answers is matched
 * against the trust's allowed roles.
 */
import type { AwsTrust } from '../domain/model.js';
import { dictionary } from '../domain/dictionary.js';
import { OutboundRefusedError } from '../errors/outbound-refused-error.js';
import type { OutboundAnswer, OutboundFetch } from '../domain/outbound-fetch.js';

/** How long STS may take to answer, in milliseconds. */
export const STS_TIMEOUT_MS = 10_000;
const MAX_STS_BODY_BYTES = 64 * 1024;
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'content-length',
]);

/** The signed request, as the client encodes it in the exchange's `token`. */
export interface SignedStsRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Decodes the `token` of an AWS exchange: base64 of `{"method","url","headers","body"}`.
 *
 * @returns the request, or a reason it is malformed.
 */
export function decodeSignedRequest(token: string): SignedStsRequest | { refused: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    return { refused: 'the token is not base64 of a JSON request' };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { refused: 'the token is not base64 of a JSON object' };
  const { method, url, headers, body } = doc as Record<string, unknown>;
  if (typeof method !== 'string' || typeof url !== 'string' || typeof body !== 'string') {
    return { refused: 'the signed request needs string "method", "url" and "body"' };
  }
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
    return { refused: 'the signed request needs a "headers" object' };
  const lower = dictionary<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') return { refused: `header "${name.slice(0, 40)}" is not a string` };
    lower[name.toLowerCase()] = value;
  }
  return { method, url, headers: lower, body };
}

/**
 * The role an ARN stands for: an assumed-role ARN
 * (`arn:aws:sts::123:assumed-role/Role/session`) counts as its role.
 * Returns `partition:account:kind/name`, comparing roles by name (an
 * assumed-role ARN drops the role's path).
 */
export function principalOf(arn: string): string | undefined {
  const assumed = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(arn);
  if (assumed) return `${assumed[1]}:${assumed[2]}:role/${assumed[3]}`;
  const iam = /^arn:(aws[a-z-]*):iam::(\d{12}):(role|user)\/(?:[^/]+\/)*([^/]+)$/.exec(arn);
  if (iam) return `${iam[1]}:${iam[2]}:${iam[3]}/${iam[4]}`;
  return undefined;
}

/** Finds the ARN in a GetCallerIdentity answer, XML or JSON. */
export function arnFromStsAnswer(text: string): string | undefined {
  const xml = /<Arn>([^<]{1,2048})<\/Arn>/.exec(text);
  if (xml) return xml[1]!.trim();
  try {
    const doc = JSON.parse(text) as {
      GetCallerIdentityResponse?: { GetCallerIdentityResult?: { Arn?: unknown } };
      Arn?: unknown;
    };
    const arn = doc.GetCallerIdentityResponse?.GetCallerIdentityResult?.Arn ?? doc.Arn;
    return typeof arn === 'string' ? arn : undefined;
  } catch {
    return undefined;
  }
}

/** Verifies AWS identities by asking STS. */
export class AwsTrustVerifier {
  /** @param outbound - sends the server's requests where it may: the trust's `sts_endpoint` must be allowed. */
  constructor(private readonly outbound: OutboundFetch) {}

  /**
   * Checks the signed request's shape, forwards it to `trust.sts_endpoint`
   * (never to the URL the client chose) and matches the answered ARN.
   *
   * @returns the allowed role ARN that matched, or a reason for the refusal (never a signature or a credential).
   */
  async verify(token: string, trust: AwsTrust): Promise<{ subject: string } | { refused: string }> {
    const signed = decodeSignedRequest(token);
    if ('refused' in signed) return signed;
    if (signed.method.toUpperCase() !== 'POST') return { refused: 'the signed request must be a POST' };
    let target: URL;
    let endpoint: URL;
    try {
      target = new URL(signed.url);
      endpoint = new URL(trust.sts_endpoint);
    } catch {
      return { refused: 'the signed request has no valid URL' };
    }
    if (target.origin !== endpoint.origin)
      return { refused: `the request was signed for ${target.host}, but this trust asks ${endpoint.host}` };
    const form = new URLSearchParams(signed.body);
    if (form.get('Action') !== 'GetCallerIdentity')
      return { refused: 'the signed request must be sts:GetCallerIdentity' };
    const authorization = signed.headers['authorization'] ?? '';
    if (!authorization.startsWith('AWS4-HMAC-SHA256 ')) return { refused: 'the request is not SigV4-signed' };
    if (trust.audience !== undefined) {
      const signedHeaders = /SignedHeaders=([^,\s]+)/.exec(authorization)?.[1]?.split(';') ?? [];
      if (signed.headers['x-vane-audience'] !== trust.audience || !signedHeaders.includes('x-vane-audience')) {
        return {
          refused: "the signed request does not carry this trust's audience in a signed x-vane-audience header",
        };
      }
    }
    let answer: OutboundAnswer;
    try {
      answer = await forward(this.outbound, new URL(`${target.pathname}${target.search}`, endpoint), signed);
    } catch (error) {
      if (error instanceof OutboundRefusedError) return { refused: `STS endpoint refused: ${error.message}` };
      return { refused: `STS could not be reached (${(error as { code?: string }).code ?? 'network error'})` };
    }
    if (answer.status !== 200) return { refused: `STS refused the signed request (${answer.status})` };
    const arn = arnFromStsAnswer(answer.text);
    const principal = arn === undefined ? undefined : principalOf(arn);
    if (principal === undefined) return { refused: 'STS answered no usable ARN' };
    const allowed = trust.role_arns.find((candidate) => principalOf(candidate) === principal);
    if (allowed === undefined) return { refused: 'the role is not allowed' };
    return { subject: allowed };
  }
}

function forward(outbound: OutboundFetch, url: URL, signed: SignedStsRequest): Promise<OutboundAnswer> {
  const headers = dictionary<string>();
  for (const [name, value] of Object.entries(signed.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
  return outbound.send(url, {
    method: 'POST',
    headers,
    body: Buffer.from(signed.body, 'utf8'),
    timeoutMs: STS_TIMEOUT_MS,
    maxBytes: MAX_STS_BODY_BYTES,
  });
}
