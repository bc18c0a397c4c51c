// libs/fastify/README.md's test of the Fastify 5 quick start (server.mjs), whole: `node --test` runs it in
// the newcomer's app with nothing more than the quick start installed, and test/readme.slow-spec.ts here.
// #region fastify5-test
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startVaneServer } from '@vane/server';
import { buildApp } from './server.mjs';

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
  const app = await buildApp({ baseUrl: server.baseUrl('shop'), apiKey: server.secretKey('shop') }, { logger: false });
  try {
    // app.inject() runs the whole request lifecycle without a socket.
    const before = await app.inject('/checkout');
    assert.equal(before.statusCode, 200);
    assert.deepEqual(before.json(), { checkout: 'new' });
    assert.deepEqual((await app.inject('/greeting')).json(), { greeting: 'Hello from a test' });

    // A flip reaches the client's stream at once: wait for its change event, not for a while.
    const flipped = new Promise((resolve) => {
      const off = app.vane.client.onChange((e) => e.key === 'new-checkout' && (off(), resolve()));
    });
    server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
    await flipped;
    assert.equal((await app.inject('/checkout')).statusCode, 404);
  } finally {
    await app.close(); // closes the client too
    await server.close();
  }
});
// #endregion fastify5-test
