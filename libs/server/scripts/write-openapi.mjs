#!/usr/bin/env node
// Writes dist/openapi.json, the server's OpenAPI 3.1 document, from the built package (src/openapi/): the same
// document `GET /admin/v1/openapi.json` serves, shipped as `@vane/server/openapi.json` for client generators.
// Run by `npm run build` after the modules are built; `npm run lint` lints the file with @redocly/cli.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { vaneOpenApiDocument } from '../dist/esm/openapi/index.js';

const target = fileURLToPath(new URL('../dist/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(vaneOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
