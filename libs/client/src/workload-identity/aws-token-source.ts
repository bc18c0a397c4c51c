/**
 * AWS: a SigV4-signed `sts:GetCallerIdentity`, signed by AWS's own signer
 * with credentials from AWS's own provider chain, encoded as PROTOCOL §8 asks.
 *
 * @packageDocumentation
 */
import { TokenExchangeFailedError, WorkloadIdentityNotConfiguredError } from '../errors.js';
import { redactText } from '../util/redact.js';
import type { ModuleImporter } from '@vane/common';
import { loadAwsModules, type AwsModules } from './aws-modules.js';
import type { PlatformTokenSource } from './platform-token-source.js';
import type { AwsCredentialsProvider } from './workload-identity-options.js';

/** The form body of GetCallerIdentity. */
export const GET_CALLER_IDENTITY_BODY = 'Action=GetCallerIdentity&Version=2011-06-15';

/** Settings of {@link AwsTokenSource}. */
export interface AwsTokenSourceSettings {
  /** The STS endpoint the request is signed for. */
  readonly stsEndpoint: string;
  /** The signing region. */
  readonly region: string;
  /** Sent as the signed `x-vane-audience` header. */
  readonly audience: string;
  /** Credentials; default AWS's Node.js provider chain. */
  readonly credentials: AwsCredentialsProvider | undefined;
  /** Instance-metadata timeout of the default chain, in milliseconds. */
  readonly timeoutMs: number;
  /** Loads the optional packages (tests). */
  readonly importer?: ModuleImporter;
}

/** Signs a fresh GetCallerIdentity for every exchange. */
export class AwsTokenSource implements PlatformTokenSource {
  readonly provider = 'aws' as const;
  readonly origin: string;
  #modules: Promise<AwsModules> | undefined;
  #credentials: AwsCredentialsProvider | undefined;

  /** @param settings - endpoint, region, audience, credentials. */
  constructor(private readonly settings: AwsTokenSourceSettings) {
    this.origin = settings.stsEndpoint;
  }

  /**
   * @throws WorkloadIdentityNotConfiguredError - when the AWS packages are missing or no credentials resolve.
   */
  async token(): Promise<string> {
    const modules = await (this.#modules ??= loadAwsModules(this.settings.importer));
    this.#credentials ??=
      this.settings.credentials ?? modules.defaultCredentials({ timeoutMs: this.settings.timeoutMs });
    let credentials;
    try {
      credentials = await this.#credentials();
    } catch (error) {
      const reason =
        error instanceof Error ? redactText(error.message.split('\n')[0]!.slice(0, 200)) : 'unknown failure';
      throw new WorkloadIdentityNotConfiguredError(
        `workload identity (aws): no AWS credentials found by the provider chain (${reason})`,
      );
    }
    const url = new URL(this.settings.stsEndpoint);
    const signer = modules.createSigner({ credentials, region: this.settings.region, service: 'sts' });
    let signed;
    try {
      signed = await signer.sign({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port === '' ? {} : { port: Number(url.port) }),
        path: url.pathname === '' ? '/' : url.pathname,
        headers: {
          host: url.host,
          'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
          'x-vane-audience': this.settings.audience,
        },
        body: GET_CALLER_IDENTITY_BODY,
      });
    } catch {
      throw new TokenExchangeFailedError('workload identity (aws): signing the GetCallerIdentity request failed');
    }
    const request = {
      method: 'POST',
      url: `${url.origin}${url.pathname === '' ? '/' : url.pathname}`,
      headers: signed.headers,
      body: GET_CALLER_IDENTITY_BODY,
    };
    return Buffer.from(JSON.stringify(request), 'utf8').toString('base64');
  }
}
