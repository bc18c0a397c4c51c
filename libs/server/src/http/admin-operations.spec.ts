import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_RIGHTS, type ChangeAction } from '../domain/model.js';
import { ADMIN_OPERATIONS, matchOperation } from './admin-operations.js';

/** Every audit action the store writes (a change of the admin API writes one of these). */
const AUDIT_ACTIONS: readonly ChangeAction[] = [
  'secret.set',
  'secret.delete',
  'secret.version.delete',
  'service.put',
  'project.put',
  'key.create',
  'key.revoke',
  'trust.put',
  'trust.delete',
  'config.set',
  'config.delete',
  'flag.set',
  'flag.delete',
  'tenant.set',
  'token.create',
  'token.revoke',
  'root_key.rotate',
  'data_key.rotate',
];

/** The route table's home, docs/operating.md, and the server README (which must print no row the table lacks). */
const DOCS = ['docs/operating.md', 'libs/server/README.md']
  .map((file) => readFileSync(join(__dirname, '..', '..', '..', '..', file), 'utf8'))
  .join('\n');

/** The route table rows of the docs: `| \`METHOD /admin/v1/path\` | \`right\`…`. */
const TABLE_ROWS = [...DOCS.matchAll(/^\| `(GET|PUT|POST|PATCH|DELETE) (\/admin\/v1\/[^`]*)` \| `([^`]+)`/gm)].map(
  (m) => ({ route: `${m[1]} ${m[2]}`, right: m[3] }),
);

describe('ADMIN_OPERATIONS: each admin operation declared once', () => {
  const names = ADMIN_OPERATIONS.map((op) => `${op.method} /admin/v1${op.path}`);

  it.each(ADMIN_OPERATIONS.map((op) => [`${op.method} /admin/v1${op.path}`, op] as const))(
    '%s has a right, an audit kind and its line in the route table of docs/operating.md',
    (name, op) => {
      expect(ADMIN_RIGHTS).toContain(op.right);
      // A read writes nothing; every change writes one audit entry of a known kind.
      if (op.method === 'GET') expect(op.audit).toBe('none');
      else expect(AUDIT_ACTIONS).toContain(op.audit);
      expect(TABLE_ROWS.filter((row) => row.route === name)).toEqual([{ route: name, right: op.right }]);
    },
  );

  it('lists no route twice, and the docs none that is not an operation', () => {
    expect(new Set(names).size).toBe(names.length);
    expect(TABLE_ROWS.map((row) => row.route).filter((route) => !names.includes(route))).toEqual([]);
  });

  it('routes a path to its operation, with its members decoded, and no other path', () => {
    const matched = matchOperation('DELETE', ['services', 'shop', 'secrets', 'tls.client%5Fpem', 'versions', '2']);
    expect(matched?.operation.path).toBe('/services/{slug}/secrets/{key}/versions/{version}');
    expect({ ...matched?.params }).toEqual({ slug: 'shop', key: 'tls.client_pem', version: '2' });
    expect(matchOperation('GET', ['services', 'shop'])?.operation.path).toBe('/services/{slug}');
    expect(matchOperation('POST', ['services', 'shop'])).toBeUndefined();
    expect(matchOperation('GET', ['services', '', 'configs'])).toBeUndefined();
    expect(matchOperation('PATCH', ['services', 'shop', 'configs', 'a'])).toBeUndefined();
  });
});
