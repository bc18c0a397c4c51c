/**
 * AWS's own signer and credential packages, optional peer dependencies of
 * `@vane/client`, loaded only when the AWS provider is used: about 17 MB that
 * no other user of the client has to download.
 *
 * @packageDocumentation
 */
import { isModuleNotFound, type ModuleImporter } from '@vane/common';
import { WorkloadIdentityNotConfiguredError } from '../errors.js';
import type { AwsCredentials, AwsCredentialsProvider } from './workload-identity-options.js';

/** The optional packages the AWS provider needs. */
export const AWS_PACKAGES = ['@smithy/signature-v4', '@aws-crypto/sha256-js', '@aws-sdk/credential-providers'] as const;

/** An HTTP request as `@smithy/signature-v4` signs it. */
export interface SignableRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The part of `@smithy/signature-v4`'s `SignatureV4` the AWS provider uses. */
export interface SigV4Signer {
  sign(request: SignableRequest): Promise<SignableRequest>;
}

/** What the AWS provider takes from the optional packages. */
export interface AwsModules {
  /** Builds AWS's SigV4 signer. */
  createSigner(init: {
    credentials: AwsCredentialsProvider | AwsCredentials;
    region: string;
    service: string;
  }): SigV4Signer;
  /** AWS's default Node.js credential chain, with a bounded instance-metadata timeout (ms). */
  defaultCredentials(init: { timeoutMs: number }): AwsCredentialsProvider;
}

const defaultImporter: ModuleImporter = (name) => import(name);

/**
 * Loads the AWS packages.
 *
 * @throws WorkloadIdentityNotConfiguredError - naming the missing packages in an `npm install` line when any is
 *   not installed, or naming the package that failed to load.
 */
export async function loadAwsModules(importer: ModuleImporter = defaultImporter): Promise<AwsModules> {
  const results = await Promise.allSettled(AWS_PACKAGES.map((name) => importer(name)));
  const failed = AWS_PACKAGES.flatMap((name, i) => {
    const result = results[i]!;
    return result.status === 'rejected' ? [{ name, reason: result.reason as unknown }] : [];
  });
  if (failed.length > 0) {
    const missing = failed.filter(({ reason }) => isModuleNotFound(reason));
    const first = failed[0]!;
    // Only the first line: Node's message goes on with the whole require stack.
    const cause = first.reason instanceof Error ? new Error(first.reason.message.split('\n')[0]) : undefined;
    throw new WorkloadIdentityNotConfiguredError(
      missing.length > 0
        ? `workload identity (aws) needs AWS's signer and credential packages, optional peer dependencies of @vane/client: npm install ${missing.map(({ name }) => name).join(' ')}`
        : `workload identity (aws): ${first.name} is installed but could not be loaded`,
      { cause },
    );
  }
  const [signature, sha, providers] = results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
    { SignatureV4: new (init: object) => SigV4Signer },
    { Sha256: unknown },
    { fromNodeProviderChain: (init: object) => AwsCredentialsProvider },
  ];
  return {
    createSigner: (init) => new signature.SignatureV4({ ...init, sha256: sha.Sha256 }),
    defaultCredentials: ({ timeoutMs }) => providers.fromNodeProviderChain({ timeout: timeoutMs, maxRetries: 1 }),
  };
}
