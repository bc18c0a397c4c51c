import { serviceUrl } from './service-http.js';

describe('serviceUrl', () => {
  it.each([
    ['https://shop.vane.example', 'https://shop.vane.example/v1/sync'],
    ['https://shop.vane.example/', 'https://shop.vane.example/v1/sync'],
    ['https://gw.example/vane', 'https://gw.example/vane/v1/sync'],
    ['https://gw.example/vane/', 'https://gw.example/vane/v1/sync'],
    ['http://shop.localhost:4400', 'http://shop.localhost:4400/v1/sync'],
  ])('%p + v1/sync → %p', (base, expected) => {
    expect(serviceUrl(new URL(base), 'v1/sync')).toBe(expected);
  });
});
