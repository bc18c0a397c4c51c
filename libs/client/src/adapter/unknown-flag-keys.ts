/**
 * The startup check: flag keys named by routes that the snapshot does not define.
 *
 * @packageDocumentation
 */
import type { VaneClient } from '../vane-client.js';
import type { VaneLogger } from '../util/logger.js';

/** A flag key named by a route, with where. */
export interface FlagKeyUse {
  readonly key: string;
  /** `GET /checkout`, or `a requireFlag() hook` for a guard seen on no route option. */
  readonly where: string;
}

/**
 * The warnings of the startup check, one per unknown key (by name, never a
 * value), each listing where the key is named (a HEAD route Fastify made for
 * a GET route is not listed twice).
 */
export function unknownFlagWarnings(
  client: Pick<VaneClient, 'flagState' | 'serviceSlug'>,
  uses: Iterable<FlagKeyUse>,
): string[] {
  const wheres = new Map<string, Set<string>>();
  for (const { key, where } of uses) {
    if (client.flagState(key).defined) continue;
    let set = wheres.get(key);
    if (!set) wheres.set(key, (set = new Set()));
    set.add(where);
  }
  return [...wheres].map(
    ([key, where]) =>
      `unknown flag "${key}" in ${[...where].filter((w) => !(w.startsWith('HEAD ') && where.has(`GET ${w.slice(5)}`))).join(', ')}: the snapshot of "${client.serviceSlug}" has no such flag (a typo, or not created yet); the route answers as if it were off`,
  );
}

/** Logs the startup check's warnings. */
export function runStartupCheck(
  client: Pick<VaneClient, 'flagState' | 'serviceSlug'>,
  uses: Iterable<FlagKeyUse>,
  logger: VaneLogger,
): void {
  for (const warning of unknownFlagWarnings(client, uses)) logger.warn(warning);
}
