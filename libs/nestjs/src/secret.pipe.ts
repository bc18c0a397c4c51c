import { Inject, Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { VaneClient, type VaneLogger } from '@vane/client';
import { SecretUnavailableException, type SecretUnavailableReason } from './errors/secret-unavailable.exception.js';
import type { SecretOptions } from './interfaces/secret-options.interface.js';
import { VANE_LOGGER } from './vane.constants.js';

/** What `@Secret()` hands to its pipe. @internal */
export interface SecretParamData extends SecretOptions {
  readonly key: string;
}

/**
 * Resolves a `@Secret()` parameter from the client's cache on every request,
 * so a rotated secret is injected on the next request. Param decorators
 * cannot inject; this pipe can, which is why `@Secret()` uses it.
 */
@Injectable()
export class SecretPipe implements PipeTransform<unknown, string | undefined> {
  constructor(
    private readonly client: VaneClient,
    @Inject(VANE_LOGGER) private readonly logger: VaneLogger,
  ) {}

  /**
   * Returns the secret's value (or file path), `undefined` if optional and
   * absent, or logs why it cannot and throws a `SecretUnavailableException`
   * (a generic 500 for the caller).
   */
  transform(_value: unknown, metadata: ArgumentMetadata): string | undefined {
    const { key, file = false, optional = false } = metadata.data as unknown as SecretParamData;
    const refusal = this.client.secretReadRefusal();
    if (refusal !== null) throw this.#unavailable(key, refusalReason(refusal.code), file);
    const value = file ? this.client.secretFile(key) : this.client.secret(key);
    if (value !== null) return value;
    if (optional) return undefined;
    throw this.#unavailable(key, 'absent', file);
  }

  #unavailable(key: string, reason: SecretUnavailableReason, file: boolean): SecretUnavailableException {
    const exception = new SecretUnavailableException(key, reason, file);
    this.logger.error(`@Secret() failed a request (500): ${exception.detail}`);
    return exception;
  }
}

function refusalReason(
  code: NonNullable<ReturnType<VaneClient['secretReadRefusal']>>['code'],
): SecretUnavailableReason {
  switch (code) {
    case 'VANE_PUBLIC_KEY_SECRET_ACCESS':
      return 'public-key';
    case 'VANE_FRONTEND_SECRET_READ':
      return 'frontend-service';
    case 'VANE_SECRETS_NOT_AVAILABLE':
      return 'not-available-yet';
  }
}
