import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// A flag is flipped with PATCH: a PUT replaces the whole flag, and on an A/B flag it drops the rule
// (the server warns, the reader who pasted the line does not see it). No document shows a PUT to a flag.
const ROOT = resolve(__dirname, '..');

/** Every Markdown file in the repository, as git lists it. */
function documents(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.includes('node_modules/'));
}

/** The shell commands of `text`, a line continued with a trailing backslash joined to the next. */
function commands(text: string): string[] {
  return text.replace(/\\\n\s*/g, ' ').split('\n');
}

/** The commands that send a PUT to a flag's address. */
function flagPuts(text: string): string[] {
  return commands(text).filter((line) => /(-X|--request)\s*['"]?PUT\b/.test(line) && /\/flags\/[^\s'"]/.test(line));
}

describe('flag flips in the documents', () => {
  it('finds a PUT to a flag across a continued line, and lets a PATCH or a PUT to a config pass', () => {
    expect(flagPuts("curl -X PUT -H 'a: b' \\\n  -d '{}' http://h/admin/v1/services/shop/flags/beta")).toHaveLength(1);
    expect(flagPuts('curl --request PUT http://h/admin/v1/services/shop/flags/beta')).toHaveLength(1);
    expect(flagPuts("curl -X PATCH -d '{}' http://h/admin/v1/services/shop/flags/beta")).toEqual([]);
    expect(flagPuts("curl -X PUT -d '{}' http://h/admin/v1/services/shop/configs/greeting")).toEqual([]);
  });

  it('every README and guide flips a flag with PATCH, never with a PUT', () => {
    const files = documents();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'libs/fastify/README.md']));
    const found = files.flatMap((file) =>
      flagPuts(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${file}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
