import { readFileSync, statSync } from 'node:fs';
import request from 'supertest';
import { EXPRESS_VERSIONS } from './support/express-versions.js';
import { startFixture, type VaneFixture } from './support/vane-fixture.js';
import { waitForChange } from '@vane/server/testing';
import { ADAPTER_SECRET_VALUES } from '@vane/test-harness';

describe.each(EXPRESS_VERSIONS)('req.vane on %s', (_name, makeApp) => {
  let fx: VaneFixture;

  beforeEach(async () => {
    fx = await startFixture();
  });
  afterEach(() => fx.close());

  function app() {
    const a = makeApp();
    a.use(fx.vane.middleware());
    a.get('/configs', (req, res) => {
      // Typed through the Request augmentation: no cast anywhere.
      const poolMax: number = req.vane.config('db.pool.max', 1);
      const host: string = req.vane.config('db.host', 'none');
      res.json({
        poolMax,
        host,
        discount: req.vane.config('pricing.discount'),
        origins: req.vane.config('cors.origins'),
        banner: req.vane.config('banner.text', 'default banner'),
        missing: req.vane.config('no.such.key', 'fallback'),
        missingNoDefault: req.vane.config('no.such.key') ?? 'undefined',
        lookupNull: req.vane.configLookup('banner.text'),
        lookupMissing: req.vane.configLookup('no.such.key'),
      });
    });
    a.get('/flags', (req, res) => {
      res.json({
        on: req.vane.flag('new-checkout'),
        off: req.vane.flag('beta'),
        missing: req.vane.flag('no-such-flag'),
        missingDefaultTrue: req.vane.flag('no-such-flag', true),
        stateOff: req.vane.flagState('beta'),
        stateMissing: req.vane.flagState('no-such-flag'),
      });
    });
    a.get('/secrets', (req, res) => {
      const pemPath = req.vane.secretFile('tls.client_pem');
      res.json({
        stripeLength: req.vane.requireSecret('stripe.api_key').length,
        stripeIsExpected: req.vane.secret('stripe.api_key') === ADAPTER_SECRET_VALUES.stripe,
        textThroughFile: req.vane.secretFile('stripe.api_key'),
        fileThroughText: req.vane.secret('tls.client_pem'),
        missing: req.vane.secret('no.such.secret'),
        pemIsV2: pemPath !== null && readFileSync(pemPath, 'utf8') === ADAPTER_SECRET_VALUES.pemV2,
        pemMode: pemPath === null ? null : (statSync(pemPath).mode & 0o777).toString(8),
        pemInfo: req.vane.secretInfo('tls.client_pem'),
      });
    });
    return a;
  }

  it('reads configs with their JSON types, defaults only for missing keys, and null kept', async () => {
    const res = await request(app()).get('/configs').expect(200);
    expect(res.body).toEqual({
      poolMax: 10,
      host: 'localhost',
      discount: 0.15,
      origins: ['https://a.example'],
      banner: null,
      missing: 'fallback',
      missingNoDefault: 'undefined',
      lookupNull: { found: true, value: null },
      lookupMissing: { found: false },
    });
  });

  it('reads flags: the server value, false (or the default) when undefined, and defined-vs-off', async () => {
    const res = await request(app()).get('/flags').expect(200);
    expect(res.body).toEqual({
      on: true,
      off: false,
      missing: false,
      missingDefaultTrue: true,
      stateOff: { defined: true, active: false },
      stateMissing: { defined: false, active: false },
    });
  });

  it('reads a text secret, a file secret (a 0600 file holding the latest version), and null across types or when absent', async () => {
    const res = await request(app()).get('/secrets').expect(200);
    expect(res.body).toEqual({
      stripeLength: ADAPTER_SECRET_VALUES.stripe.length,
      stripeIsExpected: true,
      textThroughFile: null,
      fileThroughText: null,
      missing: null,
      pemIsV2: true,
      pemMode: '600',
      pemInfo: { type: 'file', version: 2 },
    });
  });

  it('sees a config change on the next request, without a restart', async () => {
    const a = app();
    expect((await request(a).get('/configs')).body.poolMax).toBe(10);
    const changed = waitForChange(fx.vane.client, (e) => e.kind === 'config' && e.key === 'db.pool.max');
    fx.server.admin.setConfig('shop', 'db.pool.max', 42);
    await changed;
    expect((await request(a).get('/configs')).body.poolMax).toBe(42);
  });

  it('sees a rotated secret on the next request', async () => {
    const a = app();
    a.get('/stripe', (req, res) => res.json({ matches: req.vane.secret('stripe.api_key') === 'rk_test_rotated_456' }));
    expect((await request(a).get('/stripe')).body).toEqual({ matches: false });
    const rotated = waitForChange(fx.vane.client, (e) => e.kind === 'secret' && e.key === 'stripe.api_key');
    fx.server.admin.setSecret('shop', 'stripe.api_key', 'rk_test_rotated_456');
    expect(await rotated).toMatchObject({ newValue: { type: 'text', version: 2 } });
    expect((await request(a).get('/stripe')).body).toEqual({ matches: true });
  });

  it('keeps one accessor per request, even when the middleware is mounted twice', async () => {
    const a = makeApp();
    const seen: unknown[] = [];
    a.use(fx.vane.middleware(), (req, _res, next) => {
      seen.push(req.vane);
      next();
    });
    a.use(fx.vane.middleware());
    a.get('/', (req, res) => res.json({ same: seen[0] === req.vane }));
    expect((await request(a).get('/')).body).toEqual({ same: true });
  });
});
