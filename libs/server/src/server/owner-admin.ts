/**
 * The in-process admin of a running server (`VaneServer.admin`):
 * each write as the owner, committed as the admin API's would be.
 *
 * @module
 */
import type { AdminApi } from '../admin/admin-api.js';
import type { ChangeLog } from '../domain/change-log.js';
import { OWNER_ACTOR } from '../domain/actors.js';
import type { VaneServerAdmin } from './vane-server.js';

/** The owner's admin over `admin`, each write committed through `changes`. */
export function ownerAdmin(admin: AdminApi, changes: ChangeLog): VaneServerAdmin {
  const later = <T>(slugs: readonly string[] | 'all', run: () => T): T => changes.commitLater({ slugs, run });
  return {
    putService: (slug, service = {}) =>
      later([slug], () => admin.putService(slug, service.kind, OWNER_ACTOR, service.project)),
    putProject: (name) => later([], () => admin.putProject(name, OWNER_ACTOR)),
    createKey: (slug, type) => later([slug], () => admin.createKey(slug, type, OWNER_ACTOR)),
    revokeKey: (slug, key) => later([slug], () => admin.revokeKey(slug, key, OWNER_ACTOR)),
    setConfig: (slug, key, value) => later([slug], () => admin.setConfig(slug, key, value, OWNER_ACTOR)),
    deleteConfig: (slug, key) => later([slug], () => admin.deleteConfig(slug, key, OWNER_ACTOR)),
    setFlag: (slug, key, flag) => later([slug], () => admin.setFlag(slug, key, flag, OWNER_ACTOR).revision),
    patchFlag: (slug, key, patch) => later([slug], () => admin.patchFlag(slug, key, patch, OWNER_ACTOR)),
    deleteFlag: (slug, key) => later([slug], () => admin.deleteFlag(slug, key, OWNER_ACTOR)),
    setSecret: (slug, key, value, type) => later([slug], () => admin.setSecret(slug, key, value, type, OWNER_ACTOR)),
    deleteSecret: (slug, key) => later([slug], () => admin.deleteSecret(slug, key, OWNER_ACTOR)),
    deleteSecretVersion: (slug, key, version) =>
      later([slug], () => admin.deleteSecretVersion(slug, key, version, OWNER_ACTOR)),
    setTenant: (tenant) => later('all', () => admin.setTenant(tenant, OWNER_ACTOR)),
    audit: (slug) => admin.audit(slug),
    putTrust: (slug, name, trust) => {
      later([slug], () => admin.putTrust(slug, name, trust, OWNER_ACTOR));
    },
    deleteTrust: (slug, name) => later([slug], () => admin.deleteTrust(slug, name, OWNER_ACTOR)),
  };
}
