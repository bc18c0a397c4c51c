import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULTS } from '@vane/client';
import { startLocalServer } from '@vane/local-server';

// The README is documentation users copy from: keep it true.
const ROOT = resolve(__dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('README.md', () => {
  it('states the two commands of a fresh machine', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('shows exactly the code of the sample apps that the end-to-end tests run', () => {
    const out = execFileSync(process.execPath, ['scripts/readme-snippets.mjs', '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(out).toMatch(/^1\d snippets, 0 stale/);
  });

  it('documents every option of the client', () => {
    const interfaceBody = /export interface VaneClientOptions \{([\s\S]*?)\n\}/.exec(
      source('libs/client/src/options.ts'),
    )![1]!;
    const options = [...interfaceBody.matchAll(/^ {2}(?:readonly )?(\w+)\??:/gm)].map((m) => m[1]!);
    expect(options).toEqual(expect.arrayContaining(Object.keys(DEFAULTS)));
    for (const option of options) expect(readme).toContain(`\`${option}\``);
    for (const [option, value] of Object.entries(DEFAULTS)) {
      const row = readme.split('\n').find((line) => line.startsWith('| `') && line.includes(`\`${option}\``));
      expect(row).toContain(`\`${value}\``);
    }
  });

  it.each(['libs/client/src/errors.ts', 'libs/nestjs/src', 'libs/express/src'])(
    'documents every error code of %s',
    (path) => {
      const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', path], {
        cwd: ROOT,
        encoding: 'utf8',
      })
        .split('\n')
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
      const environment = new Set(['VANE_BASE_URL', 'VANE_API_KEY', 'VANE_ADMIN_TOKEN']);
      const codes = new Set(
        files
          .flatMap((f) => [...source(f).matchAll(/'(VANE_[A-Z_]+)'/g)].map((m) => m[1]!))
          .filter((code) => !environment.has(code)),
      );
      expect(codes.size).toBeGreaterThan(0);
      for (const code of codes) expect(readme).toContain(`\`${code}\``);
    },
  );
});

describe('docs/protocol.md', () => {
  const protocol = source('docs/protocol.md');

  it.each([
    'README.md',
    'libs/client/README.md',
    'libs/nestjs/README.md',
    'libs/express/README.md',
    'libs/local-server/README.md',
  ])('%s links it', (file) => {
    expect(source(file)).toMatch(/\]\((\.\.\/\.\.\/)?docs\/protocol\.md\)/);
  });

  it('covers every section of the wire protocol, the key header and the healthy-interval rule', () => {
    for (let n = 1; n <= 11; n++) expect(protocol).toMatch(new RegExp(`^## ${n}\\. `, 'm'));
    expect(protocol).toContain('X-Service-API-Key');
    expect(protocol).toContain('`streamHealthyMs`, default 60 s');
    expect(readme).toContain('`X-Service-API-Key`');
  });

  it('its .localhost example, run as it is, reaches a local server through Node fetch', async () => {
    const server = await startLocalServer({
      seed: { services: { shop: { keys: ['svs_shop_docs_secret'], configs: { answer: 42 } } } },
    });
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['examples/localhost/fetch-localhost.mjs'], {
        cwd: ROOT,
        timeout: 20_000,
        env: { ...process.env, VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: 'svs_shop_docs_secret' },
      });
      expect(stdout.trim()).toBe('200 1');
    } finally {
      await server.close();
    }
  });
});
