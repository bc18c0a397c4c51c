import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { ADMIN_OPERATIONS } from '../src/http/admin-operations.js';
import { buildOpenApiDocument, vaneOpenApiDocument } from '../src/openapi/index.js';
import { UndocumentedOperationError } from '../src/openapi/admin-paths.js';
import type { OpenApiMethod } from '../src/openapi/openapi-types.js';
import { testSeed } from '../src/testing/index.js';
import { admin, call } from './support/http-client.js';

/** A value for each path member: `shop` exists, but is outside the probing token's scope. */
const SAMPLE_MEMBERS: Readonly<Record<string, string>> = { slug: 'shop', key: 'probe', name: 'probe', version: '1' };

describe('the OpenAPI document', () => {
  let server: VaneServer;
  beforeAll(async () => {
    server = await startVaneServer({ seed: testSeed() });
  });
  afterAll(() => server.close());

  it('is served at /admin/v1/openapi.json with no token, as the build ships it', async () => {
    const answer = await call(server, { path: '/admin/v1/openapi.json' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    const served = answer.json();
    expect(served).toEqual(JSON.parse(JSON.stringify(vaneOpenApiDocument())));
    // `npm run build` (run before the tests) writes the file `@vane/server/openapi.json` points at.
    const shipped: unknown = JSON.parse(readFileSync(join(__dirname, '..', 'dist', 'openapi.json'), 'utf8'));
    expect(shipped).toEqual(served);
  });

  it('has every operation of the admin table, with its right and audit kind', () => {
    const { paths } = vaneOpenApiDocument();
    for (const operation of ADMIN_OPERATIONS) {
      const documented = paths[`/admin/v1${operation.path}`]?.[operation.method.toLowerCase() as OpenApiMethod];
      expect({ route: `${operation.method} ${operation.path}`, documented: documented !== undefined }).toEqual({
        route: `${operation.method} ${operation.path}`,
        documented: true,
      });
      expect(documented!['x-vane-right']).toBe(operation.right);
      expect(documented!['x-vane-audit']).toBe(operation.audit);
      expect(documented!.description).toContain(`Needs the right \`${operation.right}\``);
    }
    const adminOperations = Object.entries(paths)
      .filter(([path]) => path.startsWith('/admin/v1/') && path !== '/admin/v1/openapi.json')
      .flatMap(([, item]) => (['get', 'put', 'post', 'patch', 'delete'] as const).filter((m) => item[m]));
    expect(adminOperations).toHaveLength(ADMIN_OPERATIONS.length);
  });

  it("gives each operation its entry's name, summary and answer schemas", () => {
    const { paths } = vaneOpenApiDocument();
    for (const operation of ADMIN_OPERATIONS) {
      const documented = paths[`/admin/v1${operation.path}`]![operation.method.toLowerCase() as OpenApiMethod]!;
      expect(documented.operationId).toBe(operation.id);
      expect(documented.summary).toBe(operation.summary);
      for (const [status, schema] of Object.entries(operation.answer.success)) {
        expect(documented.responses[status]?.content?.['application/json']?.schema).toBe(schema);
      }
    }
  });

  it('fails to build while an operation of the table has no success answer, or an undescribed path member', () => {
    const [first] = ADMIN_OPERATIONS;
    const silent = { ...first!, answer: { description: 'nothing', success: {} } };
    expect(() => buildOpenApiDocument([silent])).toThrow(UndocumentedOperationError);
    expect(() => buildOpenApiDocument([{ ...first!, path: '/things/{thing}' }])).toThrow(UndocumentedOperationError);
  });

  it('names each operation once', () => {
    const ids = Object.values(vaneOpenApiDocument().paths).flatMap((item) =>
      (['get', 'put', 'post', 'patch', 'delete'] as const).flatMap((m) => (item[m] ? [item[m].operationId] : [])),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents only paths the server routes', async () => {
    // A token that sees nothing of `shop`: every matched operation is refused (404 for the service, 403 for a
    // right), nothing is changed, and only an unrouted request would answer "no route".
    const minted = await admin(server, 'POST', '/tokens', {
      name: 'openapi-probe',
      scope: { projects: ['elsewhere'] },
      rights: ['read'],
    });
    expect(minted.status).toBe(201);
    const probe = minted.json<{ token: string }>().token;
    const { paths } = vaneOpenApiDocument();
    let probed = 0;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
        if (!item[method]) continue;
        const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => SAMPLE_MEMBERS[name]!);
        const answer = await call(server, {
          method: method.toUpperCase(),
          path,
          ...(template.startsWith('/v1/') ? { slug: 'shop' } : { admin: probe }),
        });
        expect({ route: `${method} ${template}`, answer: answer.text }).not.toEqual({
          route: `${method} ${template}`,
          answer: expect.stringContaining('no route'),
        });
        probed++;
      }
    }
    expect(probed).toBeGreaterThan(ADMIN_OPERATIONS.length);
  });

  it('is served only where the admin API is', async () => {
    const apart = await startVaneServer({ seed: testSeed(), adminListen: '127.0.0.1:0' });
    try {
      const adminSide: VaneServer = { ...apart, port: Number(new URL(apart.adminUrl).port) };
      expect((await call(adminSide, { path: '/admin/v1/openapi.json' })).status).toBe(200);
      const main = await call(apart, { path: '/admin/v1/openapi.json' });
      expect([main.status, main.json()['error']]).toEqual([404, 'not_found']);
    } finally {
      await apart.close();
    }
  });
});
