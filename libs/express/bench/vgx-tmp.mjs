// TEMPORARY: count instructions per request of express routes under callgrind (spec: /path[@ENVFLAG])
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import autocannon from 'autocannon';
import { startLocalServer } from '@vane/local-server';
const KEY = 'svs_bench_express_secret';
const server = await startLocalServer({
  port: 0,
  seed: {
    tenant: { ab_addon: true },
    services: {
      bench: {
        kind: 'backend',
        keys: [KEY],
        configs: { 'bench.value': 0 },
        flags: {
          'new-checkout': { is_enabled: true },
          'new-pricing': {
            is_enabled: true,
            ab: {
              percentage: 0,
              salt: 'np-bench',
              cohorts: [{ conditions: [{ attribute: 'country', op: 'eq', values: ['DE'] }], percentage: 100 }],
            },
          },
        },
      },
    },
  },
});
const N = Number(process.env.N ?? 1000),
  W = Number(process.env.W ?? 2000);
async function measure(spec) {
  const [path, abl] = spec.split('@');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all',
      '--instr-atstart=no',
      `--callgrind-out-file=/tmp/pp/cgx.%p`,
      process.execPath,
      '--perf-basic-prof',
      new URL('./app.mjs', import.meta.url).pathname,
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: {
        ...process.env,
        ...(abl ? { [abl]: '1' } : {}),
        BENCH_VANE_URL: server.baseUrl('bench'),
        BENCH_VANE_KEY: KEY,
      },
    },
  );
  const port = await new Promise((res) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /\{"port":(\d+)\}/.exec(out);
      if (m) res(Number(m[1]));
    });
  });
  let seq = 0;
  const go = (amount) =>
    new Promise((r, j) =>
      autocannon(
        {
          url: `http://127.0.0.1:${port}`,
          connections: 4,
          amount,
          timeout: 120,
          requests: [
            {
              method: 'GET',
              path,
              setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-user-id': `u-${seq++ % 1000}` } }),
            },
          ],
        },
        (e, x) => (e ? j(e) : x.non2xx ? j(new Error('non2xx')) : r(x)),
      ),
    );
  await go(W);
  execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
  await go(N);
  execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
  child.kill('SIGKILL');
  const f = readdirSync('/tmp/pp').find((x) => x.startsWith(`cgx.${child.pid}.`));
  const t = Number(/^totals: (\d+)$/m.exec(readFileSync(`/tmp/pp/${f}`, 'utf8'))[1]);
  return { path: spec, perReq: Math.round(t / N), file: f, pid: child.pid };
}
const routes = process.argv.slice(2);
for (let i = 0; i < routes.length; i += 2) {
  const rs = await Promise.all(routes.slice(i, i + 2).map(measure));
  for (const r of rs) console.log(r.path, r.perReq, r.file, r.pid);
}
await server.close();
