import { VaneNestError } from './vane-nest.error.js';

/** One finding of the startup check. */
export interface VaneStartupFinding {
  /**
   * `unknown-flag`, `unknown-secret` (or of the other type), `secrets-unreadable` (public key, frontend
   * service), or `ab-context-missing` (an A/B flag in a module with no `abContext` option).
   */
  readonly kind: 'unknown-flag' | 'unknown-secret' | 'secrets-unreadable' | 'ab-context-missing';
  /** The key named in the decorator. */
  readonly key: string;
  /** Where: `Controller.method`, or `Controller` for a class-level decorator. */
  readonly where: string;
  /** What is wrong and what to do, for people. */
  readonly message: string;
}

/**
 * Raised at startup with `startupCheck: 'throw'` when a decorator names a
 * flag or secret the snapshot does not have, uses `@Secret()` where secrets
 * cannot be read, or asks for an A/B flag in a module with no `abContext`.
 * Lists every finding.
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
