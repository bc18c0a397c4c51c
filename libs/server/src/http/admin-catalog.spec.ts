import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_OPERATION_CATALOG, adminOperationPath, AdminPathMemberError } from '@vane/common';
import { ADMIN_CATALOG_FILE, adminCatalogSource } from './admin-catalog.js';
import { ADMIN_OPERATIONS, matchOperation } from './admin-operations.js';

const ROOT = join(__dirname, '..', '..', '..', '..');

describe("@vane/common's ADMIN_OPERATION_CATALOG: the operations table, for the CLI", () => {
  it('is the file the operations table renders (else: npm run build -w @vane/server && npm run admin-catalog -w @vane/server)', () => {
    expect(readFileSync(join(ROOT, ADMIN_CATALOG_FILE), 'utf8')).toBe(adminCatalogSource(ADMIN_OPERATIONS));
  });

  it('names each operation of the table with its method, its path and whether it takes a body', () => {
    expect(ADMIN_OPERATION_CATALOG).toEqual(
      Object.fromEntries(
        ADMIN_OPERATIONS.map(({ id, method, path, input }) => [id, { method, path, body: input !== 'none' }]),
      ),
    );
  });

  it('builds paths the server routes to the named operation, members percent-encoded', () => {
    const path = adminOperationPath('deleteOneSecretVersion', { slug: 'shop', key: 'tls/client pem', version: 2 });
    expect(path).toBe('/admin/v1/services/shop/secrets/tls%2Fclient%20pem/versions/2');
    const matched = matchOperation('DELETE', path.slice('/admin/v1/'.length).split('/'));
    expect(matched?.operation.id).toBe('deleteOneSecretVersion');
    expect({ ...matched?.params }).toEqual({ slug: 'shop', key: 'tls/client pem', version: '2' });
    expect(adminOperationPath('readAudit', {})).toBe('/admin/v1/audit');
  });

  it('refuses a path with a member left out', () => {
    const params = { slug: 'shop' } as unknown as Parameters<typeof adminOperationPath<'setConfig'>>[1];
    expect(() => adminOperationPath('setConfig', params)).toThrow(AdminPathMemberError);
  });
});
