import { ManualClock } from './clock.js';
import { Store } from './store.js';
import { parseServerData } from '../seed/seed-parser.js';
import { TEST_KEYS, testSeed } from '../testing/index.js';

// A write on a PostgreSQL store runs before it commits; when the commit fails it is undone from what
// saveServices kept. The copy shares the values and must still come back whole after any write.
describe('Store: saveServices and restoreServices', () => {
  const newStore = () =>
    new Store(parseServerData(testSeed(), 'test seed'), new ManualClock(Date.parse('2026-11-27T10:00:00Z')));
  const snapshot = (store: Store) => structuredClone(store.data.services.get('shop'));

  it('undoes every kind of write to a service, however it changed the service in place', () => {
    const store = newStore();
    const before = snapshot(store);
    const saved = store.saveServices(['shop']);
    store.setConfig('shop', 'db.pool.max', 99, 'admin');
    store.deleteConfig('shop', 'banner.text', 'admin');
    store.setFlag('shop', 'beta', { is_enabled: true, starts_at: null, ends_at: null }, 'admin');
    store.setSecret('shop', 'stripe.api_key', 'rk_new', 'text', 'admin');
    store.setSecret('shop', 'fresh.secret', 'new', 'text', 'admin');
    store.deleteSecretVersion('shop', 'tls.client_pem', 1, 'admin');
    store.createKey('shop', 'public', 'admin');
    store.revokeKey('shop', TEST_KEYS.shopPublic, 'admin');
    store.putService('shop', 'frontend', 'admin');
    expect(snapshot(store)).not.toEqual(before);

    store.restoreServices(saved);

    expect(snapshot(store)).toEqual(before);
    expect(store.authenticate('shop', TEST_KEYS.shopPublic)).toMatchObject({ slug: 'shop', revoked: false });
  });

  it('keeps no container the live service goes on changing, and shares the values it keeps', () => {
    const store = newStore();
    const live = store.data.services.get('shop')!;
    const saved = store.saveServices(['shop']).services.get('shop')!.service;
    expect(saved.secrets).not.toBe(live.secrets);
    expect(saved.secrets.get('tls.client_pem')!.versions).not.toBe(live.secrets.get('tls.client_pem')!.versions);
    expect(saved.secrets.get('tls.client_pem')!.versions[0]).toBe(live.secrets.get('tls.client_pem')!.versions[0]);
    expect(saved.keys).not.toBe(live.keys);
    expect(saved.configs).not.toBe(live.configs);
  });

  it('removes a service the undone write created', () => {
    const store = newStore();
    const saved = store.saveServices(['newcomer']);
    store.putService('newcomer', 'backend', 'admin');
    store.restoreServices(saved);
    expect(store.data.services.has('newcomer')).toBe(false);
  });
});
