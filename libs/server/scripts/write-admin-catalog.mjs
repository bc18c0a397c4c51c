#!/usr/bin/env node
// Writes libs/common/src/admin-operation-catalog.ts, @vane/common's catalog of the admin API (each operation's
// name, method and path), from the built server's operations table: what the `vane` CLI calls the admin API by,
// without installing the server. Run `npm run build -w @vane/server` first; admin-catalog.spec.ts fails while the
// committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ADMIN_CATALOG_FILE, adminCatalogSource } from '../dist/esm/http/admin-catalog.js';
import { ADMIN_OPERATIONS } from '../dist/esm/http/admin-operations.js';

const target = fileURLToPath(new URL(`../../../${ADMIN_CATALOG_FILE}`, import.meta.url));
writeFileSync(target, adminCatalogSource(ADMIN_OPERATIONS));
console.log(`wrote ${target}`);
