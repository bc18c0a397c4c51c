// libs/express/README.md's test of the Express 4 quick start (server.js), whole: `node --test` runs it
// in the newcomer's app with nothing more than the quick start installed, and test/readme.slow-spec.ts here.
// #region express4-test
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { once } = require('node:events');
const { createVane } = require('@vane/express');
const { startVaneServer } = require('@vane/server');
const { createApp } = require('./server.js');

// The values the test needs, on a local Vane service of its own (no file, no network).
const seed = {
  services: {
    shop: {
      keys: ['svs_shop_test_secret'],
      configs: { 'greeting.text': 'Hello from a test' },
      flags: { 'new-checkout': { is_enabled: true, starts_at: null, ends_at: null } },
      secrets: { 'stripe.api_key': { type: 'text', value: 'rk_test_not_a_real_key' } },
    },
  },
};

test('/checkout follows the new-checkout flag, with no restart', async () => {
  const server = await startVaneServer({ seed, port: 0 });
  const vane = await createVane({ baseUrl: server.baseUrl('shop'), apiKey: server.secretKey('shop') });
  const http = createApp(vane).listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `http://127.0.0.1:${http.address().port}`;
  try {
    const before = await fetch(`${url}/checkout`);
    assert.equal(before.status, 200);
    assert.deepEqual(await before.json(), { checkout: 'new' });
    assert.deepEqual(await (await fetch(`${url}/greeting`)).json(), { greeting: 'Hello from a test' });

    // A flip reaches the client's stream at once: wait for its change event, not for a while.
    const flipped = new Promise((resolve) => {
      const off = vane.client.onChange((e) => e.key === 'new-checkout' && (off(), resolve()));
    });
    server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
    await flipped;
    assert.equal((await fetch(`${url}/checkout`)).status, 404);
  } finally {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await vane.close();
    await server.close();
  }
});
// #endregion express4-test
