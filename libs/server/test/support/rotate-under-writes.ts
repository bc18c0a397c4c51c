import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startVaneServer } from '../../src/index.js';
import { TEST_KEYS, testSeed } from '../../src/testing/index.js';
import {} from '@vane/test-harness';
import { admin, call } from './http-client.js';

/** What {@link rotateUnderWrites} found after the restart. */
export interface RotationUnderWrites {
  /** Secrets that did not come back with the value written (empty when all did). */
  readonly unreadable: string[];
  /** Statuses other than 200 among the writes and the rotation. */
  readonly refused: number[];
  /** `root_key.rotate` entries in the audit. */
  readonly rotations: number;
  /** How long the rotation call took, in ms, writes going on. */
  readonly rotationMs: number;
}

/**
 * Starts a file-store server in `dir`, sends `writes` secret writes at once
 * with a root-key rotation among them, restarts with the new key alone and
 * reads every secret back.
 */
export async function rotateUnderWrites(dir: string, writes: number): Promise<RotationUnderWrites> {
  const statePath = join(dir, 'state.json');
  const seed = testSeed();
  seed.tenant!.write_rate_per_minute = 1_000_000;
  const first = await startVaneServer({ seed, statePath, rootKey: randomBytes(32).toString('base64') });
  const rotatedKey = randomBytes(32).toString('base64');
  const refused: number[] = [];
  let rotationMs = 0;
  try {
    const pending: Array<Promise<void>> = [];
    for (let n = 0; n < writes; n++) {
      pending.push(
        call(first, {
          method: 'PUT',
          path: `/v1/secrets/r.${n}`,
          slug: 'shop',
          key: TEST_KEYS.shopSecret,
          body: { value: `v-${n}` },
        }).then((answer) => {
          if (answer.status !== 200) refused.push(answer.status);
        }),
      );
      if (n === Math.floor(writes / 2)) {
        const startedAt = performance.now();
        pending.push(
          admin(first, 'POST', '/root-key/rotate', { root_key: rotatedKey }).then((answer) => {
            rotationMs = performance.now() - startedAt;
            if (answer.status !== 200) refused.push(answer.status);
          }),
        );
      }
    }
    await Promise.all(pending);
  } finally {
    await first.close();
  }
  const second = await startVaneServer({ statePath, rootKey: rotatedKey });
  try {
    const sync = await call(second, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret });
    const secrets = sync.json<{ secrets: Record<string, { value: string }> }>().secrets;
    const unreadable: string[] = [];
    for (let n = 0; n < writes; n++) if (secrets[`r.${n}`]?.value !== `v-${n}`) unreadable.push(`r.${n}`);
    const audit = await admin(second, 'GET', '/audit?limit=1000');
    const rotations = audit
      .json<{ entries: Array<{ action: string }> }>()
      .entries.filter((e) => e.action === 'root_key.rotate').length;
    return { unreadable, refused, rotations, rotationMs };
  } finally {
    await second.close();
  }
}
