// Lets `node --import ./bench/register.mjs bench/x.ts` run the TypeScript
// sources directly, compiled by @swc/core (already a root devDependency, the
// compiler the tests use), so the benchmarks need no build and no tsx.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
