/**
 * Who is calling the admin API or the console, and what they may do
 * (PROTOCOL §10): the owner token may do everything; a scoped token sees
 * the services of its scope (404 for others) and holds some rights (403 for
 * the rest). `authorize` (authorize.ts) makes every decision from these.
 */
import { OWNER_ACTOR } from '../domain/actors.js';
import {
  ADMIN_RIGHTS,
  type AdminRight,
  type AdminTokenRecord,
  type AuditRecord,
  type ServiceData,
  type TokenScope,
} from '../domain/model.js';
import type { Store } from '../domain/store.js';

/** The caller of an admin route or the console. */
export interface AdminPrincipal {
  /** The audit's actor: the token's name, `admin` for the owner token. */
  readonly name: string;
  readonly rights: ReadonlySet<AdminRight>;
  /** What it sees; undefined for everything (the owner, or `{"projects": ["*"]}`). */
  readonly scope: TokenScope | undefined;
}

/** The owner token's principal: every right on everything. */
export const OWNER_PRINCIPAL: AdminPrincipal = Object.freeze({
  name: OWNER_ACTOR,
  rights: new Set(ADMIN_RIGHTS),
  scope: undefined,
});

/** The principal of a scoped token. */
export function tokenPrincipal(name: string, token: AdminTokenRecord): AdminPrincipal {
  const everything = 'projects' in token.scope && token.scope.projects.includes('*');
  return { name, rights: new Set(token.rights), scope: everything ? undefined : token.scope };
}

/** Whether the principal sees this service. */
export function seesService(principal: AdminPrincipal, slug: string, service: ServiceData): boolean {
  const scope = principal.scope;
  if (scope === undefined) return true;
  return 'projects' in scope ? scope.projects.includes(service.project) : scope.services.includes(slug);
}

/** Whether the principal sees this project (a services scope sees the projects of its services). */
export function seesProject(principal: AdminPrincipal, project: string, store: Store): boolean {
  const scope = principal.scope;
  if (scope === undefined) return true;
  if ('projects' in scope) return scope.projects.includes(project);
  return scope.services.some((slug) => store.service(slug)?.project === project);
}

/** Whether the principal holds `right`. */
export function holds(principal: AdminPrincipal, right: AdminRight): boolean {
  return principal.rights.has(right);
}

/**
 * Whether the principal may read an audit entry: one of a service it sees
 * (with `read`), or one of the tenant, projects, tokens or keys (with `admin`).
 */
export function seesAuditEntry(principal: AdminPrincipal, store: Store, entry: AuditRecord): boolean {
  if (entry.service === null) return principal.scope === undefined && holds(principal, 'admin');
  const service = store.service(entry.service);
  return service !== undefined && seesService(principal, entry.service, service);
}

/** Whether `inner` grants nothing `outer` lacks: no right it does not hold, no service it does not see. */
export function withinPrincipal(outer: AdminPrincipal, rights: AdminRight[], scope: TokenScope, store: Store): boolean {
  if (!rights.every((right) => outer.rights.has(right))) return false;
  if (outer.scope === undefined) return true;
  if ('projects' in scope) {
    return (
      !scope.projects.includes('*') &&
      scope.projects.every((project) => 'projects' in outer.scope! && outer.scope.projects.includes(project))
    );
  }
  return scope.services.every((slug) => {
    const service = store.service(slug);
    return service !== undefined && seesService(outer, slug, service);
  });
}
