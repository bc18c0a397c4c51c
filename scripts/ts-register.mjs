// Lets `node --import <repo>/scripts/ts-register.mjs x.ts` run our TypeScript
// sources directly, compiled by @swc/core (the compiler the tests already use),
// for the client benchmark and the tests that start the Express sample as a
// real process: no build and no tsx needed.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
