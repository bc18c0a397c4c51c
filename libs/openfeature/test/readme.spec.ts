import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The package README's examples are cut from files the tests run (`<!-- snippet: path#region -->`,
// the convention of scripts/readme-snippets.mjs; paths from the repository root): keep them equal.
const ROOT = resolve(__dirname, '../../..');
const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const MARKER = /<!-- snippet: ([^#\s]+)#([\w-]+) -->\n+```\w*\n([\s\S]*?)```/g;

function region(file: string, name: string): string {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  if (start === -1 || end === -1) throw new Error(`${file}: no region "${name}"`);
  const body = lines.slice(start + 1, end);
  const indent = Math.min(...body.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
  return body.map((l) => l.slice(indent)).join('\n') + '\n';
}

const snippets = [...readme.matchAll(MARKER)].map((m) => ({ file: m[1]!, name: m[2]!, shown: m[3]! }));

describe('libs/openfeature/README.md', () => {
  it('has its quick start and Nest examples as snippets', () => {
    expect(snippets.map((s) => s.name)).toEqual(
      expect.arrayContaining(['setup', 'evaluate', 'shutdown', 'adopt', 'own-client', 'context', 'controller']),
    );
  });

  it.each(snippets.map((s) => [`${s.file}#${s.name}`, s] as const))('shows %s as the tested source has it', (_, s) => {
    expect(s.shown).toBe(region(s.file, s.name));
  });

  it('documents every option and every error code the provider answers', () => {
    for (const word of [
      '`abFlags`',
      "`'none'`",
      '`FLAG_NOT_FOUND`',
      '`TYPE_MISMATCH`',
      '`INVALID_CONTEXT`',
      '`GENERAL`',
    ])
      expect(readme).toContain(word);
    for (const event of ['PROVIDER_READY', 'PROVIDER_CONFIGURATION_CHANGED', 'PROVIDER_STALE', 'PROVIDER_ERROR'])
      expect(readme).toContain(`\`${event}\``);
  });
});
