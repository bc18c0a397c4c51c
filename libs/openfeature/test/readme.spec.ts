import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The README's examples are cut from files the tests run; scripts/readme-snippets.mjs (run by
// test/readme.slow-spec.ts) keeps each one equal to its source. Here: that they are there at all.
const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const MARKER = /<!-- snippet: [^#\s]+#([\w-]+) -->/g;

describe('libs/openfeature/README.md', () => {
  it('has its quick start and Nest examples as snippets', () => {
    expect([...readme.matchAll(MARKER)].map((m) => m[1])).toEqual(
      expect.arrayContaining(['openfeature-quick-start', 'adopt', 'own-client', 'context', 'controller']),
    );
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
