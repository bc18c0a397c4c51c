import { VaneNestError } from './vane-nest.error.js';

/** An optional peer (`@nestjs/config`, `@nestjs/terminus`) is needed by a feature in use but is not installed. */
export class OptionalPeerMissingError extends VaneNestError {
  readonly code = 'VANE_NEST_OPTIONAL_PEER_MISSING' as const;
  /** The package to install. */
  readonly packageName: string;

  /**
   * @param packageName - the missing package.
   * @param feature - what needs it.
   */
  constructor(packageName: string, feature: string, options?: { cause?: unknown }) {
    super(`${feature} needs ${packageName}, which is not installed: run "npm install ${packageName}"`, options);
    this.packageName = packageName;
  }
}
