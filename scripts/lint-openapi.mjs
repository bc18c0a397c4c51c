#!/usr/bin/env node
// Lints the server's OpenAPI document (libs/server/dist/openapi.json, written by `npm run build`) with
// `@redocly/cli lint` and the rules of redocly.yaml (Redocly's recommended set). Redocly fails only on errors;
// this fails on a warning too, so the document stays clean. Nothing is fetched: telemetry and the update check
// are off, and the document has no remote `$ref`.
//   node scripts/lint-openapi.mjs [document]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const document = process.argv[2] ?? 'libs/server/dist/openapi.json';
if (!existsSync(new URL(document, `file://${root}/`))) {
  console.error(`${document} is missing: run \`npm run build\` first`);
  process.exit(1);
}
const redocly = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' };
let output;
try {
  output = execFileSync(process.execPath, [redocly, 'lint', document, '--config', 'redocly.yaml', '--format=json'], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
} catch (error) {
  // Exit 1 when the document has errors: the JSON report is still on stdout.
  output = error.stdout ?? '';
  if (output === '') throw error;
}
const report = JSON.parse(output);
for (const problem of report.problems) {
  const where = problem.location?.map((l) => l.pointer).join(', ') ?? '';
  console.error(`${problem.severity} ${problem.ruleId}: ${problem.message} ${where}`);
}
const { errors, warnings } = report.totals;
if (errors > 0 || warnings > 0) {
  console.error(`${document}: ${errors} errors, ${warnings} warnings (redocly lint, redocly.yaml)`);
  process.exit(1);
}
console.log(`${document}: no problems (redocly lint, recommended rules)`);
