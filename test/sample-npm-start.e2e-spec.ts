import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { sweepStaleSecretDirs } from '@vane/client';
import { get, send } from './support/http.js';
import { groupAlive, killLeftovers, spawnNodeGroup, trackGroup, type Proc } from './support/process.js';
import { ROOT, baseEnv } from './support/samples.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// `npm start` without its build step: `node scripts/start.mjs` (`npm test`
// built everything first), on free ports. The script runs in a process group
// of its own, as under a terminal, and puts each child in a group of its own;
// the test reads their pids, to tell that they are gone and to kill them all
// if a test fails.
describe('npm start (scripts/start.mjs)', () => {
  afterEach(killLeftovers, PROCESS_TEST_MS);

  const ADMIN_TOKEN = 'e2e-admin-token';

  /** Starts the script and waits for its try-it block; returns the URLs and the flip command it printed. */
  async function start(env: NodeJS.ProcessEnv = {}): Promise<{
    proc: Proc;
    pids: Record<'vane' | 'nest' | 'express' | 'vite' | 'next', number>;
    nestUrl: string;
    expressUrl: string;
    viteUrl: string;
    nextUrl: string;
    flip: string;
    streamCurl: string;
    /** The printed install of the packed packages in an Express app of the reader's own. */
    expressInstall: string;
  }> {
    const proc = spawnNodeGroup(['scripts/start.mjs'], {
      cwd: ROOT,
      env: {
        ...baseEnv(),
        VANE_PORT: '0',
        NEST_PORT: '0',
        EXPRESS_PORT: '0',
        VITE_PORT: '0',
        NEXT_PORT: '0',
        VANE_ADMIN_TOKEN: ADMIN_TOKEN,
        ...env,
      },
    });
    const ready = proc.nextLine(/^Press Ctrl-C to stop everything\.$/, { timeoutMs: 20_000 });
    // Every child it started is tracked (for killLeftovers), even when it fails before it is ready.
    await ready.finally(() => {
      for (const line of proc.lines) {
        const started = /^\[\w+\]\s+started \(pid (\d+)\)$/.exec(line);
        if (started) trackGroup(Number(started[1]));
      }
    });
    const find = (pattern: RegExp): string => {
      const match = proc.lines.map((line) => pattern.exec(line)).find((m) => m !== null);
      if (!match) throw new Error(`no line matching ${pattern} in:\n${proc.lines.join('\n')}`);
      return match[1]!;
    };
    const pid = (name: string): number => Number(find(new RegExp(`^\\[${name}\\]\\s+started \\(pid (\\d+)\\)$`)));
    return {
      proc,
      pids: { vane: pid('vane'), nest: pid('nest'), express: pid('express'), vite: pid('vite'), next: pid('next') },
      nestUrl: find(/^\s+NestJS sample\s+(http:\/\/\S+)$/),
      expressUrl: find(/^\s+Express sample\s+(http:\/\/\S+)$/),
      viteUrl: find(/^\s+Vite \+ React app\s+(http:\/\/[^/\s]+)/),
      nextUrl: find(/^\s+Next\.js app\s+(http:\/\/[^/\s]+)/),
      flip: find(/^\s+(curl -X PATCH .*"is_enabled": false.*flags\/new-checkout)$/),
      streamCurl: find(/^\s+(curl -N .*\/v1\/stream)$/),
      expressInstall: find(/^\s+(npm install \S+vane-express-\S+\.tgz.*)# Express, in your app$/),
    };
  }

  /** Runs a printed `curl -N …` line through the shell, as a reader would paste it; every wait is bounded. */
  function runStreamCurl(command: string): { saw(pattern: RegExp): Promise<void>; close(): void } {
    const child = spawn('sh', ['-c', `exec ${command}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    return {
      saw: (pattern) =>
        new Promise((resolve, reject) => {
          const check = (): void => {
            if (!pattern.test(output)) return;
            clearTimeout(timer);
            child.stdout.off('data', check);
            resolve();
          };
          const timer = setTimeout(() => {
            child.stdout.off('data', check);
            reject(new Error(`the stream curl printed no ${pattern} within 10 s; it printed:\n${output}`));
          }, 10_000);
          child.stdout.on('data', check);
          check();
        }),
      close: () => child.kill('SIGTERM'),
    };
  }

  /** Runs a printed `curl -X PATCH -H '…' -d '…' URL` (or PUT) line as an HTTP request. */
  function runCurl(command: string): ReturnType<typeof send> {
    const method = /-X (\S+)/.exec(command)![1]!;
    const headers = Object.fromEntries(
      [...command.matchAll(/-H '([^:']+): ([^']*)'/g)].map(([, name, value]) => [name!.toLowerCase(), value!]),
    );
    const body = /-d '([^']*)'/.exec(command)?.[1];
    const url = /(http:\/\/\S+)$/.exec(command)![1]!;
    return send(method, url, { headers, ...(body === undefined ? {} : { body }) });
  }

  it("runs both samples against the local server; the printed flip changes the guarded routes at once; a terminal's Ctrl-C stops the apps, then the server, exit 0", async () => {
    const { proc, pids, nestUrl, expressUrl, viteUrl, nextUrl, flip, streamCurl, expressInstall } = await start();
    expect(flip).toContain(`Authorization: Bearer ${ADMIN_TOKEN}`);
    // An app of the reader's own installs npm pack's output: every tarball it needs is named, @vane/common too.
    const tarballs = expressInstall.split(/\s+/).filter((arg) => arg.endsWith('.tgz'));
    expect(tarballs.map((arg) => basename(arg).replace(/-\d+\.\d+\.\d+\.tgz$/, ''))).toEqual([
      'vane-express',
      'vane-client',
      'vane-client-core',
      'vane-common',
    ]);

    // The browser apps, built for production, on the frontend service `web` with its public key (their
    // pages in chromium: the browser-apps slow specs).
    const vanePort = /\[vane\].*listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(proc.lines.join('\n'))![1];
    const vitePage = await get(`${viteUrl}/?user=u-1`);
    expect(vitePage.status).toBe(200);
    expect(vitePage.text).toContain(`<meta name="vane-base-url" content="http://web.localhost:${vanePort}" />`);
    const nextPage = await get(`${nextUrl}/?user=u-1`);
    expect(nextPage.status).toBe(200);
    expect(nextPage.text).toContain('data-testid="theme-color">#0b5fff<');

    expect(await get(`${nestUrl}/checkout`)).toMatchObject({ status: 200, body: { checkout: 'new' } });
    expect(await get(`${expressUrl}/checkout`)).toMatchObject({ status: 200, body: { checkout: 'new' } });
    expect((await get(`${nestUrl}/greeting`)).body).toMatchObject({ greeting: 'Hello from the Vane local server' });
    expect((await get(`${nestUrl}/health`)).status).toBe(200);

    // The printed stream curl, run by curl itself: the flip below reaches it as a patch.
    const stream = runStreamCurl(streamCurl);
    await stream.saw(/^event: resync$/m);
    const nestSaw = proc.nextLine(/^\[nest\].*vane: flag new-checkout changed/);
    const expressSaw = proc.nextLine(/^\[express\].*vane: flag new-checkout changed/);
    expect((await runCurl(flip)).status).toBe(200);
    await Promise.all([nestSaw, expressSaw]);
    await stream.saw(/^event: patch\ndata: .*"new-checkout":\{"is_enabled":false/m);
    stream.close();
    expect((await get(`${nestUrl}/checkout`)).status).toBe(404);
    expect((await get(`${expressUrl}/checkout`)).status).toBe(404);

    // Ctrl-C in a terminal signals its whole foreground process group: here, the script's.
    const before = proc.lines.length;
    process.kill(-proc.pid, 'SIGINT');
    await expect(proc.exited).resolves.toEqual({ code: 0, signal: null });
    const exitedAt = (name: string): number =>
      proc.lines.findIndex((line) => new RegExp(`^\\[${name}\\]\\s+exited \\(code 0\\)$`).test(line));
    for (const name of ['nest', 'express', 'vite', 'next', 'vane']) expect(exitedAt(name)).toBeGreaterThan(before);
    // The apps first, each on one signal (no forced close), closing their streams while the server still runs.
    expect(exitedAt('vane')).toBeGreaterThan(
      Math.max(exitedAt('nest'), exitedAt('express'), exitedAt('vite'), exitedAt('next')),
    );
    const stopping = proc.lines.slice(before).filter((line) => /^\[(nest|express)\]/.test(line));
    expect(stopping.filter((line) => /closing$/.test(line))).toHaveLength(2);
    expect(stopping.filter((line) => /again: closing now|drain timeout|stream error|stream: /.test(line))).toEqual([]);
    for (const pid of Object.values(pids)) expect(groupAlive(pid)).toBe(false);
    expect(groupAlive(proc.pid)).toBe(false);
  }, 60_000);

  it('a child that dies stops the others, and the script exits non-zero', async () => {
    // A temp directory of its own: the sweep below then sees this run's samples only.
    const tmp = mkdtempSync(join(tmpdir(), 'npm-start-'));
    const { proc, pids, expressUrl } = await start({ TMPDIR: tmp });
    expect((await get(`${expressUrl}/greeting`)).status).toBe(200); // the Express sample is past its startup code
    const nestPid = pids.nest;
    process.kill(nestPid, 'SIGKILL');
    await expect(proc.exited).resolves.toEqual({ code: 1, signal: null });
    expect(proc.lines).toContainEqual(expect.stringMatching(/^\[nest\]\s+exited \(SIGKILL\)$/));
    expect(proc.lines).toContainEqual(expect.stringMatching(/^\[express\]\s+exited \(code 0\)$/));
    for (const pid of Object.values(pids)) expect(groupAlive(pid)).toBe(false);
    expect(groupAlive(proc.pid)).toBe(false);
    // A process killed outright cannot remove its file secrets: the next start sweeps them, as this does.
    expect((await sweepStaleSecretDirs(tmp)).map((dir) => basename(dir))).toEqual([
      expect.stringMatching(new RegExp(`^vane-secrets-${nestPid}-`)),
    ]);
    expect(readdirSync(tmp)).toEqual([]);
    rmSync(tmp, { recursive: true });
  }, 60_000);
});
