import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors/config-error.js';
import { helpText } from './help-text.js';
import { loadServerConfig } from './load-server-config.js';
import { SERVER_SCHEMA } from './server-options.js';

describe('the server settings (flag > env > file > default)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const load = (
    argv: string[],
    env: NodeJS.ProcessEnv = {},
    program: 'vane-server' | 'vane-local-server' = 'vane-local-server',
  ) => loadServerConfig({ program, argv, env });
  const failure = (run: () => unknown): ConfigError => {
    try {
      run();
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    throw new Error('expected a ConfigError');
  };

  it('takes defaults per command', () => {
    expect(load([]).values).toMatchObject({ port: 4400, host: '127.0.0.1', store: 'memory', adminToken: undefined });
    expect(load([], { VANE_ADMIN_TOKEN: 't' }, 'vane-server').values.host).toBe('0.0.0.0');
  });

  it('lets a flag win over the environment, the environment over the file, the file over the default', () => {
    const file = join(dir, 'vane.yaml');
    writeFileSync(file, 'port: 4500\nhost: 10.0.0.1\nping-interval-ms: 2000\nstate: from-file.json\n');
    const loaded = load(['--config', file, '--port', '4600'], { VANE_PORT: '4700', VANE_HOST: '10.0.0.2' });
    expect(loaded.values).toMatchObject({
      port: 4600,
      host: '10.0.0.2',
      pingIntervalMs: 2000,
      store: 'file:from-file.json',
    });
    expect(loaded.sources.port.name).toBe('--port');
    expect(loaded.sources.host.name).toBe('VANE_HOST');
    expect(loaded.sources.pingIntervalMs.name).toBe(`${file}: ping-interval-ms`);
    expect(loaded.sources.sessionTtlMs.kind).toBe('default');
  });

  it('reads a JSON config file named by VANE_CONFIG, numbers as numbers', () => {
    const file = join(dir, 'vane.json');
    writeFileSync(file, JSON.stringify({ port: 0, store: 'file:s.json' }));
    expect(load([], { VANE_CONFIG: file }).values).toMatchObject({ port: 0, store: 'file:s.json' });
  });

  it('names the wrong setting where it was written', () => {
    const file = join(dir, 'vane.yaml');
    writeFileSync(file, 'port: 4500\nsesion-ttl-ms: 5\n');
    expect(failure(() => load(['--config', file])).setting).toBe(`${file}: sesion-ttl-ms`);
    writeFileSync(file, 'session-ttl-ms: 5\n');
    expect(failure(() => load(['--config', file])).message).toBe(
      `${file}: session-ttl-ms: expected an integer from 1000 to 86400000, received 5`,
    );
    expect(failure(() => load([], { VANE_STORE: 'redis://x' })).message).toBe(
      'VANE_STORE: expected memory, file:PATH or postgres://…',
    );
    expect(failure(() => load(['--headers-timeout-ms', '5000', '--request-timeout-ms', '2000'])).setting).toBe(
      '--request-timeout-ms',
    );
    expect(failure(() => load(['--headers-timeout-ms', '40000'])).message).toBe(
      '--request-timeout-ms: must be at least --headers-timeout-ms (40000)',
    );
    expect(failure(() => load(['--nope'])).setting).toBe('--nope');
    writeFileSync(file, 'port: [1\n');
    expect(failure(() => load(['--config', file])).message).toMatch(/not valid YAML \(line \d\)/);
  });

  it('takes the outbound allow-list from --allow-outbound or the config file, and names a bad entry', () => {
    expect(load([]).values.allowOutbound).toEqual([]);
    expect(load(['--allow-outbound', 'http://127.0.0.1:8080,10.20.0.0/16']).values.allowOutbound).toEqual([
      'http://127.0.0.1:8080',
      '10.20.0.0/16',
    ]);
    const file = join(dir, 'vane.yaml');
    writeFileSync(file, 'allow-outbound:\n  - https://keys.corp.internal\n  - fd00::/8\n');
    expect(load(['--config', file]).values.allowOutbound).toEqual(['https://keys.corp.internal', 'fd00::/8']);
    const bad = failure(() => load(['--allow-outbound', 'http://127.0.0.1:8080/keys']));
    expect(bad.setting).toBe('--allow-outbound');
    expect(bad.message).toMatch(/give an origin \(scheme, host and port\), no path or credentials/);
    expect(failure(() => load(['--allow-outbound', '10.0.0.0/33'])).message).toMatch(/neither an origin/);
  });

  it('takes --state FILE as --store file:FILE, and refuses both at once', () => {
    expect(load(['--state', 's.json']).values.store).toBe('file:s.json');
    expect(load([], { VANE_STATE: 's.json' }).values.store).toBe('file:s.json');
    expect(failure(() => load(['--state', 's.json', '--store', 'memory'])).message).toBe(
      '--state: conflicts with --store: give one',
    );
  });

  it('reads secrets from the environment or a file, never from argv or the config file, and never quotes them', () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 's3cret-from-file\n');
    expect(load(['--admin-token-file', tokenFile]).values.adminToken).toBe('s3cret-from-file');
    expect(load([], { VANE_ADMIN_TOKEN_FILE: tokenFile }).values.adminToken).toBe('s3cret-from-file');
    expect(load([], { VANE_ADMIN_TOKEN: 's3cret-env' }).values.adminToken).toBe('s3cret-env');
    for (const argv of [['--admin-token', 's3cret-argv'], ['--admin-token=s3cret-argv']]) {
      const error = failure(() => load(argv));
      expect(error.setting).toBe('--admin-token');
      expect(error.message).not.toContain('s3cret');
    }
    const file = join(dir, 'vane.yaml');
    writeFileSync(file, 'admin-token: s3cret-in-file\n');
    const inFile = failure(() => load(['--config', file]));
    expect(inFile.setting).toBe(`${file}: admin-token`);
    expect(inFile.message).not.toContain('s3cret');
    const url = 'postgres://vane:s3cret-pw@db.internal/vane';
    const inUrl = failure(() => load(['--store', url]));
    expect(inUrl.setting).toBe('--store');
    expect(inUrl.message).not.toContain('s3cret');
    expect(load([], { VANE_STORE: url }).values.store).toBe(url);
  });

  it('requires an admin token of vane-server, not of vane-local-server', () => {
    expect(failure(() => load([], {}, 'vane-server')).setting).toBe('VANE_ADMIN_TOKEN');
    expect(load([]).values.adminToken).toBeUndefined();
  });

  it('generates a help line for every setting, with its environment variable and default', () => {
    const help = helpText('vane-local-server', SERVER_SCHEMA, []);
    for (const line of [
      '--port N',
      'VANE_PORT',
      'default: 4400',
      '--admin-token-file FILE',
      '--state FILE',
      '--config FILE',
    ]) {
      expect(help).toContain(line);
    }
    expect(help).not.toMatch(/--admin-token [A-Z]/);
  });
});
