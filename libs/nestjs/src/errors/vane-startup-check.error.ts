import { VaneNestError } from './vane-nest.error.js';

/** One finding of the startup check. */
export interface VaneStartupFinding {
  /** `unknown-flag`, `unknown-secret` (or of the other type), or `secrets-unreadable` (public key, frontend service). */
  readonly kind: 'unknown-flag' | 'unknown-secret' | 'secrets-unreadable';
  /** The key named in the decorator. */
  readonly key: string;
  /** Where: `Controller.method`, or `Controller` for a class-level decorator. */
  readonly where: string;
  /** What is wrong and what to do, for people. */
  readonly message: string;
}

/**
 * Raised at startup with `startupCheck: 'throw'` when a decorator names a
 * flag or secret the snapshot does not have, or uses `@Secret()` where
 * secrets cannot be read. Lists every finding.
 */
export class VaneStartupCheckError extends VaneNestError {
  readonly code = 'VANE_NEST_STARTUP_CHECK_FAILED' as const;
  /** Every finding, by key and place. */
  readonly findings: readonly VaneStartupFinding[];

  /** @param findings - what the check found (at least one). */
  constructor(findings: readonly VaneStartupFinding[]) {
    super(`Vane startup check failed:\n${findings.map((f) => `  - ${f.message}`).join('\n')}`);
    this.findings = findings;
  }
}
