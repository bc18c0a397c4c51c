import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { ADMIN_TYPES_FILE, adminTypesSource } from '../src/openapi/client-types.js';
import { vaneOpenApiDocument } from '../src/openapi/index.js';
import {
  adminClient,
  adminPut,
  adminRequest,
  AdminRequestError,
  OpenApiMismatchError,
  testSeed,
  type AdminClient,
  type AdminEndpoint,
} from '../src/testing/index.js';
import type * as Testing from '../src/testing/index.js';

const ROOT = join(__dirname, '..', '..', '..');

describe('adminClient: the admin API by operation name, typed from the operations table', () => {
  let server: VaneServer;
  /** Every answer checked: fails without Ajv. */
  let checked: AdminClient;
  beforeAll(async () => {
    server = await startVaneServer({ seed: testSeed() });
    checked = adminClient(server, { checkAnswers: true });
  });
  afterAll(() => server.close());

  it('types itself from the file the OpenAPI document renders (else: npm run build -w @vane/server && npm run admin-catalog -w @vane/server)', () => {
    const file = join(ROOT, ADMIN_TYPES_FILE);
    // prettier's CLI in its own process, as the script formats the file (its API needs ESM loading jest lacks).
    const formatted = execFileSync(
      process.execPath,
      [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', file],
      {
        input: adminTypesSource(vaneOpenApiDocument()),
        encoding: 'utf8',
      },
    );
    expect(readFileSync(file, 'utf8')).toBe(formatted);
  });

  it('calls each operation by its name, with its path members, body and query', async () => {
    // #region admin-client
    const admin = adminClient(server); // answers checked against the OpenAPI document where Ajv is installed
    const { revision } = await admin.setConfig({ slug: 'shop', key: 'db.pool.max' }, { value: 25 });
    const { body: shop } = await admin.getService({ slug: 'shop' }); // typed: the document's answer
    expect(shop.configs['db.pool.max']).toBe(25);
    const { body: page } = await admin.readAudit({ query: { service: 'shop', limit: 1 } });
    expect(page.entries[0]).toMatchObject({ action: 'config.set', key: 'db.pool.max', old: 10, new: 25, revision });
    // #endregion admin-client
    expect(shop.revision).toBe(revision);
    const set = await checked.setConfig({ slug: 'shop', key: 'db.pool.max' }, { value: 26 });
    expect(set.status).toBe(200);
    expect(set.revision).toBe(set.body.revision);

    const minted = await checked.createToken({ name: 'ci', rights: ['read'], scope: { projects: ['default'] } });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatch(/^vat_/);
    const tokens = await checked.listTokens();
    expect(tokens.body.tokens.map((token) => token.name)).toContain('ci');
    expect((await checked.revokeToken({ name: 'ci' })).body).toEqual({ revoked: 'ci' });

    const removed = await checked.deleteOneSecretVersion({ slug: 'shop', key: 'tls.client_pem', version: 1 });
    expect(removed.revision).toBeGreaterThan(set.revision!);
    // An operation whose body may be left out.
    expect((await checked.putProject({ name: 'payments' })).status).toBe(201);
  });

  it('rejects a refusal with AdminRequestError, its answer checked too', async () => {
    const refused = checked.getService({ slug: 'nowhere' });
    await expect(refused).rejects.toThrow(AdminRequestError);
    await expect(refused).rejects.toMatchObject({ status: 404 });
  });

  it('is typed: a wrong member, body or query does not compile', () => {
    // Never called: the lines are for the type checker (`npm run typecheck`).
    const misuse = (client: AdminClient) => [
      // @ts-expect-error a config's path has a key
      client.setConfig({ slug: 'shop' }, { value: 1 }),
      // @ts-expect-error a key is secret or public
      client.createKey({ slug: 'shop' }, { type: 'private' }),
      // @ts-expect-error a flag's is_enabled is a boolean
      client.setFlag({ slug: 'shop', key: 'beta' }, { is_enabled: 'yes' }),
      // @ts-expect-error deleting a config takes no body
      client.deleteConfig({ slug: 'shop', key: 'k' }, { value: 1 }, {}),
      // @ts-expect-error the audit has no query parameter `flag`
      client.readAudit({ query: { flag: 'beta' } }),
    ];
    expect(typeof misuse).toBe('function');
  });
});

describe('answers the OpenAPI document does not describe', () => {
  let impostor: Server;
  let endpoint: AdminEndpoint;
  beforeAll(async () => {
    // A server that answers a config write with a revision that is not a number: the document says it is one.
    impostor = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"revision":"seven"}');
      });
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    endpoint = { url: `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`, adminToken: 'unused' };
  });
  afterAll(() => new Promise<void>((resolve) => impostor.close(() => resolve())));

  it('are refused by adminClient, adminRequest and adminPut', async () => {
    const write = adminClient(endpoint).setConfig({ slug: 'shop', key: 'a' }, { value: 1 });
    await expect(write).rejects.toThrow(OpenApiMismatchError);
    await expect(write).rejects.toThrow(
      /PUT \/admin\/v1\/services\/shop\/configs\/a answered 200 with a body that breaks/,
    );
    await expect(adminRequest(endpoint, 'PUT', 'services/shop/configs/a', { value: 1 })).rejects.toThrow(
      OpenApiMismatchError,
    );
    await expect(adminPut(endpoint, 'services/shop/configs/a', { value: 1 })).rejects.toThrow(OpenApiMismatchError);
  });

  it('pass unchecked when the check is turned off', async () => {
    const answer = await adminClient(endpoint, { checkAnswers: false }).setConfig(
      { slug: 'shop', key: 'a' },
      { value: 1 },
    );
    expect(answer.text).toBe('{"revision":"seven"}');
  });

  it('without Ajv installed: skipped by default, refused with AnswerCheckUnavailableError when asked for', async () => {
    // A project without the optional peers: the module loader finds no `ajv/dist/2020.js`.
    const missing = () => {
      throw Object.assign(new Error("Cannot find module 'ajv/dist/2020.js'"), { code: 'MODULE_NOT_FOUND' });
    };
    let testing!: typeof Testing;
    jest.isolateModules(() => {
      jest.doMock('ajv/dist/2020.js', missing, { virtual: true });
      testing = jest.requireActual<typeof Testing>('../src/testing/index.js');
    });
    try {
      const unchecked = await testing.adminClient(endpoint).setConfig({ slug: 'shop', key: 'a' }, { value: 1 });
      expect(unchecked.text).toBe('{"revision":"seven"}');
      await expect(
        testing.adminClient(endpoint, { checkAnswers: true }).setConfig({ slug: 'shop', key: 'a' }, { value: 1 }),
      ).rejects.toThrow(testing.AnswerCheckUnavailableError);
    } finally {
      jest.dontMock('ajv/dist/2020.js');
    }
  });
});
