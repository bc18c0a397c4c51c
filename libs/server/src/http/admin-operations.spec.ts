import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_RIGHTS, type ChangeAction } from '../domain/model.js';
import { ADMIN_OPERATIONS, matchOperation, type AdminOperation } from './admin-operations.js';

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

/**
 * The route table rows of the docs, `| \`METHOD /admin/v1/path\` | \`right\`… | reaches | body | answer | audit |`,
 * with their body, answer and audit cells (an escaped `\|` stays in its cell).
 */
const TABLE_ROWS = [...DOCS.matchAll(/^\| `(GET|PUT|POST|PATCH|DELETE) (\/admin\/v1\/[^`]*)` \| `([^`]+)`(.*)$/gm)].map(
  (m) => {
    const cells = m[4]!.split(/(?<!\\) \|(?: |$)/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
    return { route: `${m[1]} ${m[2]}`, right: m[3], body: cells[2], answer: cells[3], audit: cells[4] };
  },
);

/** An operation's line in the route table, as its entry says it. */
function expectedRow(op: AdminOperation): (typeof TABLE_ROWS)[number] {
  return {
    route: `${op.method} /admin/v1${op.path}`,
    right: op.right,
    body: op.input === 'none' ? '' : op.input.what,
    answer: op.answer.description,
    audit: op.audit === 'none' ? '' : `\`${op.audit}\``,
  };
}

describe('ADMIN_OPERATIONS: each admin operation declared once', () => {
  const names = ADMIN_OPERATIONS.map((op) => `${op.method} /admin/v1${op.path}`);

  it.each(ADMIN_OPERATIONS.map((op) => [`${op.method} /admin/v1${op.path}`, op] as const))(
    '%s has a name, a right, an audit kind, an answer schema and its line in the route table of docs/operating.md',
    (name, op) => {
      expect(op.id).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary).toMatch(/^[A-Z].*[^.]$/);
      expect(ADMIN_RIGHTS).toContain(op.right);
      // A read writes nothing; every change writes one audit entry of a known kind.
      if (op.method === 'GET') expect(op.audit).toBe('none');
      else expect(AUDIT_ACTIONS).toContain(op.audit);
      // At least one success answer, each a JSON Schema of an object (a reference names one of the document's).
      const success = Object.entries(op.answer.success);
      expect(success.length).toBeGreaterThan(0);
      for (const [status, schema] of success) {
        expect(['200', '201']).toContain(status);
        expect(schema).toEqual(
          expect.objectContaining(schema['$ref'] ? { $ref: expect.any(String) } : { type: 'object' }),
        );
      }
      expect(TABLE_ROWS.filter((row) => row.route === name)).toEqual([expectedRow(op)]);
    },
  );

  it('lists no route or name twice, and the docs no route that is not an operation', () => {
    expect(new Set(names).size).toBe(names.length);
    const ids = ADMIN_OPERATIONS.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
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
