/**
 * GCP: an identity JWT for the audience, from the metadata server.
 *
 * @packageDocumentation
 */
import { TokenExchangeFailedError } from '../errors.js';
import { describeNetworkError, type MetadataHttp } from './metadata-http.js';
import type { PlatformTokenSource } from './platform-token-source.js';

/** The metadata server's identity endpoint (PROTOCOL §8). */
export class GcpTokenSource implements PlatformTokenSource {
  readonly provider = 'gcp' as const;
  readonly origin: string;

  /**
   * @param http - metadata calls.
   * @param host - the metadata server's host (and port), e.g. `metadata.google.internal`.
   * @param audience - the audience of the identity token.
   * @param timeoutMs - cut-off of the call, in milliseconds.
   */
  constructor(
    private readonly http: MetadataHttp,
    host: string,
    private readonly audience: string,
    private readonly timeoutMs: number,
  ) {
    this.origin = `http://${host}`;
  }

  /** @throws TokenExchangeFailedError - when the metadata server does not give a token. */
  async token(): Promise<string> {
    const url = `${this.origin}/computeMetadata/v1/instance/service-accounts/default/identity?audience=${encodeURIComponent(this.audience)}&format=full`;
    let answer;
    try {
      answer = await this.http.fetch({ url, headers: { 'metadata-flavor': 'Google' }, timeoutMs: this.timeoutMs });
    } catch (error) {
      throw new TokenExchangeFailedError(
        `workload identity (gcp): cannot reach the metadata server at ${this.origin} (${describeNetworkError(error)})`,
        undefined,
        { cause: error },
      );
    }
    const token = answer.text.trim();
    if (answer.status !== 200 || token === '') {
      throw new TokenExchangeFailedError(
        `workload identity (gcp): the metadata server at ${this.origin} answered ${answer.status} to the identity request`,
      );
    }
    return token;
  }
}
