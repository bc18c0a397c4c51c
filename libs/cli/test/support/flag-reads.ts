import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `dir/flags.ts`: an app file that reads each of `flags` through `VaneClient#flag`, for `vane refs` to find. */
export function writeFlagReads(dir: string, flags: readonly string[]): void {
  writeFileSync(
    join(dir, 'flags.ts'),
    [
      "import type { VaneClient } from '@vane/client';",
      'export const read = (c: VaneClient): boolean[] => [',
      ...flags.map((flag) => `  c.flag('${flag}'),`),
      '];',
      '',
    ].join('\n'),
  );
}
