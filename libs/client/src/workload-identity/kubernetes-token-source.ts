/**
 * Kubernetes: the projected service-account token, read from its file.
 *
 * @packageDocumentation
 */
import { readFile } from 'node:fs/promises';
import { WorkloadIdentityNotConfiguredError } from '../errors.js';
import type { PlatformTokenSource } from './platform-token-source.js';

/** Reads the service-account JWT anew for every exchange (the kubelet rotates it). */
export class KubernetesTokenSource implements PlatformTokenSource {
  readonly provider = 'kubernetes' as const;

  /** @param origin - the token file. */
  constructor(readonly origin: string) {}

  /** @throws WorkloadIdentityNotConfiguredError - when the file cannot be read or is empty. */
  async token(): Promise<string> {
    return readTokenFile(this.origin, 'Kubernetes service-account token');
  }
}

/**
 * Reads a token file, trimmed.
 *
 * @throws WorkloadIdentityNotConfiguredError - naming the file and the reason, never its content.
 */
export async function readTokenFile(path: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new WorkloadIdentityNotConfiguredError(`workload identity: cannot read the ${what} at ${path} (${code})`);
  }
  const token = text.trim();
  if (token === '') throw new WorkloadIdentityNotConfiguredError(`workload identity: the ${what} at ${path} is empty`);
  return token;
}
