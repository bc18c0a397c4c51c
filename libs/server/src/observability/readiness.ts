/** The outcome of one {@link ReadinessCheck}. */
export interface ReadinessResult {
  /** Whether the condition holds. */
  readonly ok: boolean;
  /** Why not (or what was checked), for `/readyz`; never a secret. */
  readonly detail?: string;
}

/**
 * One condition of `/readyz`: the server answers `200` only while every
 * check passes. A store adds its own (the database is reachable, this
 * replica has applied the latest committed revision).
 */
export interface ReadinessCheck {
  /** Short, stable name shown in `/readyz` (`draining`, `database`). */
  readonly name: string;
  /** Resolves with the outcome; a rejection or a check slower than the bound counts as not ready. */
  check(): ReadinessResult | Promise<ReadinessResult>;
}

/** What `/readyz` reports. */
export interface ReadinessReport {
  /** Whether every check passed: `/readyz` answers 200. */
  readonly ready: boolean;
  /** Each check by name, with its outcome. */
  readonly checks: ReadonlyArray<{ readonly name: string } & ReadinessResult>;
}

/**
 * The list of readiness checks, with the one every server has: not
 * draining. Checks run in parallel, each bounded by `timeoutMs`.
 */
export class Readiness {
  readonly #checks: ReadinessCheck[] = [];
  #draining = false;

  /** @param timeoutMs - how long one check may take before it counts as failed. */
  constructor(private readonly timeoutMs = 2000) {
    this.add({
      name: 'draining',
      check: () => (this.#draining ? { ok: false, detail: 'the server is draining its streams' } : { ok: true }),
    });
  }

  /** Adds a check; returns a function that removes it. */
  add(check: ReadinessCheck): () => void {
    this.#checks.push(check);
    return () => {
      const index = this.#checks.indexOf(check);
      if (index !== -1) this.#checks.splice(index, 1);
    };
  }

  /** Turns `/readyz` false for good: the server is draining. */
  startDraining(): void {
    this.#draining = true;
  }

  /** Whether the server is draining. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Runs every check. Never rejects. */
  async report(): Promise<ReadinessReport> {
    const checks = await Promise.all(
      this.#checks.map(async (check) => ({ name: check.name, ...(await this.#run(check)) })),
    );
    return { ready: checks.every((c) => c.ok), checks };
  }

  async #run(check: ReadinessCheck): Promise<ReadinessResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ReadinessResult>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${this.timeoutMs} ms` }), this.timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(() => check.check()), timeout]);
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : 'the check failed' };
    } finally {
      clearTimeout(timer);
    }
  }
}
