/**
 * Azure: a managed-identity access token from IMDS or App Service's identity
 * endpoint, or AKS's federated token file.
 *
 * @packageDocumentation
 */
import { TokenExchangeFailedError } from '../errors.js';
import { readTokenFile } from './kubernetes-token-source.js';
import { describeNetworkError, type MetadataHttp } from './metadata-http.js';
import type { PlatformTokenSource } from './platform-token-source.js';

/** Where an Azure identity comes from. */
export type AzureIdentitySource =
  | { readonly kind: 'federated-token-file'; readonly path: string }
  | { readonly kind: 'app-service'; readonly endpoint: string; readonly header: string }
  | { readonly kind: 'imds'; readonly endpoint: string };

/** A managed-identity token for the audience (the `resource`). */
export class AzureTokenSource implements PlatformTokenSource {
  readonly provider = 'azure' as const;
  readonly origin: string;

  /**
   * @param http - metadata calls.
   * @param source - IMDS, App Service or the AKS federated token file.
   * @param audience - the `resource` of the token.
   * @param clientId - a user-assigned identity's client id, if any.
   * @param timeoutMs - cut-off of each call, in milliseconds.
   */
  constructor(
    private readonly http: MetadataHttp,
    private readonly source: AzureIdentitySource,
    private readonly audience: string,
    private readonly clientId: string | undefined,
    private readonly timeoutMs: number,
  ) {
    this.origin = source.kind === 'federated-token-file' ? source.path : source.endpoint;
  }

  /** @throws TokenExchangeFailedError | WorkloadIdentityNotConfiguredError - naming the source. */
  async token(): Promise<string> {
    const s = this.source;
    if (s.kind === 'federated-token-file')
      return readTokenFile(s.path, 'Azure federated token (AZURE_FEDERATED_TOKEN_FILE)');
    const query = new URLSearchParams({ resource: this.audience });
    if (this.clientId !== undefined) query.set('client_id', this.clientId);
    let url: string;
    let headers: Record<string, string>;
    if (s.kind === 'app-service') {
      query.set('api-version', '2019-08-01');
      url = `${s.endpoint}${s.endpoint.includes('?') ? '&' : '?'}${query}`;
      headers = { 'x-identity-header': s.header };
    } else {
      query.set('api-version', '2018-02-01');
      url = `${s.endpoint}/metadata/identity/oauth2/token?${query}`;
      headers = { metadata: 'true' };
    }
    const what = s.kind === 'app-service' ? 'App Service identity endpoint' : 'instance metadata service';
    let answer;
    try {
      answer = await this.http.fetch({ url, headers, timeoutMs: this.timeoutMs });
    } catch (error) {
      throw new TokenExchangeFailedError(
        `workload identity (azure): cannot reach the ${what} at ${this.origin} (${describeNetworkError(error)})`,
        undefined,
        { cause: error },
      );
    }
    let token: unknown;
    try {
      token = (JSON.parse(answer.text) as { access_token?: unknown }).access_token;
    } catch {
      token = undefined;
    }
    if (answer.status !== 200 || typeof token !== 'string' || token === '') {
      throw new TokenExchangeFailedError(
        `workload identity (azure): the ${what} at ${this.origin} answered ${answer.status} without an access token`,
      );
    }
    return token;
  }
}
