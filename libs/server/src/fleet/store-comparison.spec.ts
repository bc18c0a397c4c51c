import { compareWithStore } from './store-comparison.js';

describe('compareWithStore', () => {
  const served = new Map([
    ['shop', { revision: 4, digest: 'd-shop' }],
    ['blog', { revision: 2, digest: 'd-blog' }],
  ]);

  it('is behind when the store committed a later revision, even with every peer agreeing', () => {
    const outcome = compareWithStore({
      served,
      busy: new Set(),
      heads: { shop: 6, news: 1 },
      peers: [{ shop: 'd-shop', blog: 'd-blog' }],
    });
    expect(outcome).toEqual(
      new Map([
        ['shop', 'revision 4 served, 6 committed'],
        ['news', 'not served, revision 1 committed'],
        ['blog', undefined],
      ]),
    );
  });

  it('diverges when most peers at the same change serve another digest; a tie counts against both', () => {
    expect(
      compareWithStore({ served, busy: new Set(), heads: {}, peers: [{ shop: 'x' }, { shop: 'x' }] }).get('shop'),
    ).toBe('revision 4 served with a digest 2 of 2 peers at the same change do not share');
    expect(compareWithStore({ served, busy: new Set(), heads: {}, peers: [{ shop: 'x' }] }).get('shop')).toMatch(
      /digest 1 of 1 peers/,
    );
    expect(
      compareWithStore({ served, busy: new Set(), heads: {}, peers: [{ shop: 'd-shop' }, { shop: 'x' }] }).get('shop'),
    ).toBeUndefined();
  });

  it('leaves out services with a write in flight here', () => {
    const outcome = compareWithStore({ served, busy: new Set(['shop']), heads: { shop: 9 }, peers: [{ shop: 'x' }] });
    expect(outcome.has('shop')).toBe(false);
    expect(outcome.get('blog')).toBeUndefined();
  });
});
