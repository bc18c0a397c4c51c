import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/** A root key given (file or environment) is not one: not 32 bytes of base64, or the file cannot be read. */
export class RootKeyError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_ROOT_KEY_INVALID' as const;

  /** @param message - names the source (file or variable) and the line, never the key. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}
