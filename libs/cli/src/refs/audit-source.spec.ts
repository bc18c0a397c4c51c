import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from '../cli-error.js';
import { HttpAuditSource, type AuditChange } from './audit-source.js';

// The audit client on PROTOCOL §10's page contract, served here one entry a page so that every page turn,
// cursor and refusal is exercised (test/stale-audit.slow-spec.ts reads the server's own audit).
const TOKEN = 'vat_read_only_token_for_tests';

const entry = (key: string, at: string, action: string): AuditChange => ({
  at,
  actor: 'admin',
  action,
  service: 'shop',
  key,
  revision: 1,
  old: null,
  new: action.startsWith('secret.') ? undefined : { is_enabled: true },
});

/** Newest first: a config change of the same name, then the flag's changes. */
const ENTRIES = [
  entry('new-checkout', '2026-11-20T10:00:00Z', 'config.set'),
  entry('new-checkout', '2026-10-01T10:00:00Z', 'flag.patch'),
  entry('new-checkout', '2026-09-01T10:00:00Z', 'flag.set'),
];

let server: Server;
let url: string;
const asked: URLSearchParams[] = [];

function answer(req: IncomingMessage): { status: number; body: unknown } {
  if (req.headers.authorization !== `Bearer ${TOKEN}`) return { status: 401, body: { error: 'unauthorized' } };
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  asked.push(query);
  if (query.get('service') !== 'shop') return { status: 404, body: { error: 'not_found', message: 'no service' } };
  const matching = ENTRIES.filter((e) => e.key === query.get('key'));
  // One entry a page, whatever `limit` says: the client must follow `next`.
  const from = Number(query.get('cursor') ?? '0');
  const next = from + 1 < matching.length ? String(from + 1) : null;
  return { status: 200, body: { entries: matching.slice(from, from + 1), next } };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const { status, body } = answer(req);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('finds the newest flag change of a key, across pages, skipping other kinds of change', async () => {
  asked.length = 0;
  const last = await new HttpAuditSource(url, TOKEN).lastFlagChange('shop', 'new-checkout');
  expect(last).toMatchObject({ action: 'flag.patch', at: '2026-10-01T10:00:00Z' });
  expect(asked.map((q) => [q.get('service'), q.get('key'), q.get('cursor')])).toEqual([
    ['shop', 'new-checkout', null],
    ['shop', 'new-checkout', '1'],
  ]);
});

it('answers undefined for a flag the audit never saw change', async () => {
  expect(await new HttpAuditSource(url, TOKEN).lastFlagChange('shop', 'beta')).toBeUndefined();
});

it('refuses in one line, naming the audit and never the token', async () => {
  const wrong = new HttpAuditSource(url, 'vat_wrong').lastFlagChange('shop', 'beta');
  await expect(wrong).rejects.toThrow(new CliError('VANE_CLI_REFUSED', `the audit at ${url} refused the admin token`));
  const scoped = new HttpAuditSource(url, TOKEN).lastFlagChange('web', 'beta');
  await expect(scoped).rejects.toMatchObject({
    code: 'VANE_CLI_REFUSED',
    message: expect.stringContaining('not_found'),
  });
  await expect(scoped).rejects.not.toMatchObject({ message: expect.stringContaining(TOKEN) });
});
