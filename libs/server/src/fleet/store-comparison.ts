/** What a replica serves for one service, as its heartbeat publishes it. */
export interface ServedService {
  readonly revision: number;
  /** {@link serviceDigest} of what it serves. */
  readonly digest: string;
}

/** What one replica compares itself with, read in one heartbeat. */
export interface StoreComparisonInput {
  /** What this replica serves, per service; services with a write in flight here are left out (not comparable now). */
  readonly served: ReadonlyMap<string, ServedService>;
  /** Services with a write in flight here: neither in step nor differing this time. */
  readonly busy: ReadonlySet<string>;
  /**
   * The store's committed head revision of each service changed after what
   * this replica had applied when it read them (the truth, so a fleet where
   * every replica is behind is caught).
   */
  readonly heads: Readonly<Record<string, number>>;
  /** The digests of the peers that had applied exactly what this replica has (they must serve the same). */
  readonly peers: ReadonlyArray<Readonly<Record<string, string>>>;
}

/**
 * Compares what a replica serves with the store and its peers, per service:
 * behind when the store committed a later revision, diverged when its digest
 * is not the one most replicas at the same point serve (a tie counts as
 * diverged on both sides: reloading the sound one costs a read, never data).
 *
 * @returns per service, why it differs, or `undefined` when in step; busy services are absent.
 */
export function compareWithStore(input: StoreComparisonInput): Map<string, string | undefined> {
  const outcome = new Map<string, string | undefined>();
  for (const [slug, head] of Object.entries(input.heads)) {
    if (input.busy.has(slug)) continue;
    const served = input.served.get(slug);
    if (served === undefined) outcome.set(slug, `not served, revision ${head} committed`);
    else if (served.revision < head) outcome.set(slug, `revision ${served.revision} served, ${head} committed`);
  }
  for (const [slug, served] of input.served) {
    if (outcome.has(slug) || input.busy.has(slug)) continue;
    const counts = new Map<string, number>([[served.digest, 1]]);
    for (const peer of input.peers) {
      const digest = peer[slug];
      if (digest !== undefined) counts.set(digest, (counts.get(digest) ?? 0) + 1);
    }
    const mine = counts.get(served.digest)!;
    const others = [...counts].filter(([digest]) => digest !== served.digest);
    const agreeing = mine - 1;
    const differing = others.reduce((sum, [, n]) => sum + n, 0);
    outcome.set(
      slug,
      others.some(([, n]) => n >= mine)
        ? `revision ${served.revision} served with a digest ${differing} of ${agreeing + differing} peers at the same change do not share`
        : undefined,
    );
  }
  return outcome;
}
