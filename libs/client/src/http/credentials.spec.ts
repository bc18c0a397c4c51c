import { ApiKeyCredentials } from './credentials.js';

describe('ApiKeyCredentials', () => {
  it('yields the key header, a redacted description, and never renews', () => {
    const creds = new ApiKeyCredentials('svs_shop_local_secret');
    expect(creds.keyType).toBe('sk');
    expect(creds.headers()).toEqual({ 'x-service-api-key': 'svs_shop_local_secret' });
    expect(creds.describe()).toBe('svs_…cret');
    expect(creds.onUnauthorized()).toBe(false);
    expect(JSON.stringify({ creds })).not.toContain('svs_shop_local_secret');
  });
});
