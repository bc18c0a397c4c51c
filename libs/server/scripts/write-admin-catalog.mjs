#!/usr/bin/env node
// Writes what the server's operations table generates outside the server's own code, from the built package:
// - libs/common/src/admin-operation-catalog.ts, @vane/common's catalog of the admin API (each operation's name,
//   method and path): what the `vane` CLI calls the admin API by, without installing the server;
// - libs/server/src/testing/admin-operation-types.ts, the admin API's types from the OpenAPI document (formatted
//   by prettier): what types `adminClient` of `@vane/server/testing`.
// Run `npm run build -w @vane/server` first; admin-catalog.spec.ts and admin-client.spec.ts fail while a committed
// file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { ADMIN_CATALOG_FILE, adminCatalogSource } from '../dist/esm/http/admin-catalog.js';
import { ADMIN_OPERATIONS } from '../dist/esm/http/admin-operations.js';
import { ADMIN_TYPES_FILE, adminTypesSource } from '../dist/esm/openapi/client-types.js';
import { vaneOpenApiDocument } from '../dist/esm/openapi/index.js';

const root = new URL('../../../', import.meta.url);
const catalog = fileURLToPath(new URL(ADMIN_CATALOG_FILE, root));
writeFileSync(catalog, adminCatalogSource(ADMIN_OPERATIONS));
console.log(`wrote ${catalog}`);
const types = fileURLToPath(new URL(ADMIN_TYPES_FILE, root));
const options = { ...(await prettier.resolveConfig(types)), filepath: types };
writeFileSync(types, await prettier.format(adminTypesSource(vaneOpenApiDocument()), options));
console.log(`wrote ${types}`);
