#!/usr/bin/env node
// Writes seeds/vane-seed.schema.json from the valibot schema in src/seed/seed-schema.ts (through the built package),
// with @valibot/to-json-schema (also what the server's OpenAPI document converts its request bodies with).
// Run `npm run seed-schema -w @vane/server` after changing the schema; a test fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toJsonSchema } from '@valibot/to-json-schema';
import { SEED_SCHEMA_HEADER, seedSchema } from '../dist/esm/seed/seed-schema.js';

const target = fileURLToPath(new URL('../seeds/vane-seed.schema.json', import.meta.url));
const generated = toJsonSchema(seedSchema, { target: 'draft-2020-12' });
const schema = { $schema: generated.$schema, ...SEED_SCHEMA_HEADER, ...generated };
writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote ${target}`);
