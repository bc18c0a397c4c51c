import type { KeyCatalog } from '../catalog/key-catalog.js';
import type { KeyUse } from './key-use.js';
import { compareWithCatalog, formatReport } from './refs-report.js';

const use = (kind: KeyUse['kind'], key: string | null, line: number, via = 'flag'): KeyUse => ({
  kind,
  key,
  via,
  file: 'src/app.ts',
  line,
  column: 3,
  ...(key === null ? { expression: 'name' } : {}),
});

const flag = { isEnabled: true, startsAt: null, endsAt: null, split: false };
const catalog = (secrets: KeyCatalog['secrets']): KeyCatalog => ({
  origin: 'a test',
  slug: 'shop',
  configs: new Map([['db.host', 'string']]),
  flags: new Map([
    ['new-checkout', flag],
    ['old-banner', flag],
  ]),
  secrets,
});

const USES = [
  use('flag', 'new-checkout', 1),
  use('flag', 'nope', 2),
  use('flag', 'nope', 9, 'requireFlag'),
  use('config', 'db.host', 3, 'config'),
  use('config', 'db.prot', 4, 'config'),
  use('secret', 'stripe.api_key', 5, 'secret'),
  use('flag', null, 6),
];

describe('compareWithCatalog', () => {
  it('groups the undefined keys of each kind with their uses, and lists the unused flags', () => {
    const { undefinedKeys, unusedFlags } = compareWithCatalog(USES, catalog(new Map()));
    expect(undefinedKeys.map((k) => `${k.kind} ${k.key} ${k.uses.map((u) => u.line).join(',')}`)).toEqual([
      'flag nope 2,9',
      'config db.prot 4',
      'secret stripe.api_key 5',
    ]);
    expect(unusedFlags).toEqual(['old-banner']);
  });

  it('does not judge secrets a source could not see', () => {
    const { undefinedKeys } = compareWithCatalog(USES, catalog(null));
    expect(undefinedKeys.map((k) => k.key)).toEqual(['nope', 'db.prot']);
  });
});

it('formats every section for people', () => {
  const uses = USES.slice(0, 2);
  const lines = formatReport({
    uses,
    dynamic: [use('flag', null, 6)],
    undefinedKeys: [{ kind: 'flag', key: 'nope', uses: [uses[1]!] }],
    unusedFlags: ['old-banner'],
    staleFlags: [
      { key: 'new-checkout', state: 'on', lastChangedAt: '2026-09-01T00:00:00Z', days: 87, uses: [uses[0]!] },
    ],
  });
  expect(lines).toEqual([
    'KIND  KEY           WHERE         VIA',
    'flag  new-checkout  src/app.ts:1  flag',
    'flag  nope          src/app.ts:2  flag',
    '',
    '2 uses, 1 with keys built at run time',
    '',
    'error: 1 key used but not defined on the service:',
    '  flag nope: src/app.ts:2',
    '',
    '1 flag defined but read nowhere (unless read by a key built at run time):',
    '  old-banner',
    '',
    '1 flag fully on or off and unchanged for long (remove them from the code):',
    '  new-checkout: on since 2026-09-01T00:00:00Z (87 days): src/app.ts:1',
  ]);
});
