// A copy of this build with sealing switched off (secret values stored as given), the "unsealed" side of
// sealing.bench.mjs: the same code otherwise, so the ratio is what sealing itself costs.
//   node bench/unsealed-copy.mjs /tmp/vane-unsealed   then   --baseline-cli unsealed=/tmp/vane-unsealed/libs/server/dist/cjs/cli.js
import { appendFileSync, cpSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const target = process.argv[2];
if (!target) throw new Error('usage: node bench/unsealed-copy.mjs DIR');
const server = fileURLToPath(new URL('..', import.meta.url));
const root = join(server, '..', '..');
rmSync(target, { recursive: true, force: true });
for (const part of ['dist', 'package.json', 'seeds']) {
  cpSync(join(server, part), join(target, 'libs', 'server', part), { recursive: true });
}
// Resolved as from the repository: its dependencies and the other libraries.
symlinkSync(join(root, 'node_modules'), join(target, 'node_modules'));
const off = `
// Bench only (bench/unsealed-copy.mjs): sealing off.
SealingCodec.prototype.sealChange = function (change) { return [change]; };
SealingCodec.prototype.sealState = function () {};
`;
for (const format of ['cjs', 'esm'])
  appendFileSync(join(target, 'libs/server/dist', format, 'sealing/sealing-codec.js'), off);
console.log(`${target}/libs/server/dist/cjs/cli.js: this build, sealing off`);
