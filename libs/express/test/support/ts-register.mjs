// Lets `node --import ./ts-register.mjs sample-app/express/main.ts` run the
// TypeScript sources directly, compiled by @swc/core (the compiler jest uses),
// so the end-to-end test of the sample runs it as a process with no build.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
