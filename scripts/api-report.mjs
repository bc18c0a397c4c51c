#!/usr/bin/env node
// The public surface of every published package, one API report per entry (`.`, `./testing`,
// `./adapter`, …), written by Microsoft's API Extractor from the built `.d.ts` files into
// `libs/<lib>/api/`. A change to what a package exports changes its report, so it shows in review.
//   node scripts/api-report.mjs           exit 1 and name every entry whose surface differs from its report
//   node scripts/api-report.mjs --write   rewrite the reports from the build (then review the diff)
//   --entry @vane/x[/sub]                 only that entry;  --reports DIR   reports read from DIR instead
// Run after `npm run build`.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = fileURLToPath(new URL('..', import.meta.url));
const write = process.argv.includes('--write');
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const only = option('--entry');
const reports = option('--reports');

/** Every published package's entries: report name and the CommonJS `.d.ts` the entry resolves to. */
export function entries() {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return workspaces.flatMap((workspace) => {
    const dir = join(root, workspace);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (manifest.private) return [];
    const lib = manifest.name.replace(/^@vane\//, '');
    return Object.entries(manifest.exports)
      .filter(([, target]) => typeof target === 'object')
      .map(([entry, target]) => ({
        dir,
        name: entry === '.' ? lib : `${lib}-${entry.slice(2).replaceAll('/', '-')}`,
        entry: entry === '.' ? manifest.name : `${manifest.name}/${entry.slice(2)}`,
        types: join(dir, target.require.types),
      }));
  });
}

/** Runs API Extractor on one entry: whether its report matches (or was rewritten), and its messages. */
function report({ dir, name, types }, temp) {
  const reportFolder = reports ?? join(dir, 'api');
  mkdirSync(reportFolder, { recursive: true });
  const config = ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: join(dir, 'package.json'),
    configObject: {
      projectFolder: dir,
      mainEntryPointFilePath: types,
      compiler: { overrideTsconfig: { compilerOptions: { types: ['node'], skipLibCheck: true } } },
      apiReport: { enabled: true, reportFileName: name, reportFolder, reportTempFolder: temp },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          // Vane marks nothing @public/@beta: every exported name is public, and the report lists them all.
          'ae-missing-release-tag': { logLevel: 'none' },
          // A type reached only through an exported one is part of the surface: the report shows it.
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
          // Missing comments and broken {@link}s are TypeDoc's to report (`npm run docs`, warnings as errors).
          'ae-undocumented': { logLevel: 'none' },
          'ae-unresolved-link': { logLevel: 'none' },
        },
        // TSDoc's syntax is TypeDoc's business (`npm run docs` checks the comments).
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  });
  const messages = [];
  const result = Extractor.invoke(config, {
    localBuild: write,
    messageCallback: (message) => {
      message.handled = true;
      if (message.messageId.startsWith('console-')) return; // the report's own news: written, missing, changed
      if (message.logLevel === 'warning' || message.logLevel === 'error')
        messages.push(message.formatMessageWithLocation(dir));
    },
  });
  return { changed: result.apiReportChanged, messages };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const temp = mkdtempSync(join(tmpdir(), 'vane-api-report-'));
  let failed = false;
  try {
    for (const entry of entries().filter((e) => only === undefined || e.entry === only)) {
      const { changed, messages } = report(entry, temp);
      for (const line of messages) console.error(`${entry.entry}: ${line}`);
      if (messages.length > 0) failed = true;
      if (changed && !write) {
        failed = true;
        console.error(
          `${entry.entry}: its public surface differs from its report, ${entry.name}.api.md` +
            ' — review the change, then run `node scripts/api-report.mjs --write` and commit the report',
        );
      } else if (changed) console.log(`${entry.entry}: report rewritten`);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}
