/**
 * The one authorization decision of the admin API, the console API and the
 * console's event feed (PROTOCOL §10): from the principal, the right an
 * operation needs and what it reaches. What the principal does not see is a
 * 404 indistinguishable from a missing thing; what it sees without the right
 * is a 403.
 */
import { ForbiddenError } from './forbidden-error.js';
import type { AdminRight, ServiceData } from '../domain/model.js';
import { NotFoundError } from '../errors/not-found-error.js';
import type { Store } from '../domain/store.js';
import { seesProject, seesService, type AdminPrincipal } from './admin-principal.js';

/** What an operation reaches, for the scope half of the decision. */
export type AccessTarget =
  /** Lists: any principal may ask, and the answer holds only what it sees. */
  | { readonly kind: 'visible' }
  /** What spans every project (the tenant, sealing keys, projects, the audit's head): a token that sees all of them. */
  | { readonly kind: 'everything' }
  /** One service: it must exist and be in the principal's scope (404 otherwise). */
  | { readonly kind: 'service'; readonly slug: string }
  /** One project: it must be in the principal's scope (404 otherwise). */
  | { readonly kind: 'project'; readonly name: string };

/**
 * Decides whether `principal` may do what needs `right` on `target`.
 *
 * @returns the service, for a `service` target.
 * @throws NotFoundError (404) when the target is outside the principal's scope (or does not exist);
 *   ForbiddenError (403) when it lacks the right, or a token of a narrower scope asks for what spans every project.
 */
export function authorize(
  principal: AdminPrincipal,
  right: AdminRight,
  target: AccessTarget,
  store: Store,
  what: string,
): ServiceData | undefined {
  let service: ServiceData | undefined;
  if (target.kind === 'service') {
    service = store.service(target.slug);
    if (!service || !seesService(principal, target.slug, service)) {
      throw new NotFoundError(`no service named "${target.slug}"`);
    }
  }
  if (target.kind === 'project' && !seesProject(principal, target.name, store)) {
    throw new NotFoundError(`no project named "${target.name}"`);
  }
  if (!principal.rights.has(right)) {
    throw new ForbiddenError(`the admin token "${principal.name}" lacks the right "${right}" (${what})`, right);
  }
  if (target.kind === 'everything' && principal.scope !== undefined) {
    throw new ForbiddenError(`${what} needs a token scoped to every project`, right);
  }
  return service;
}

/** {@link authorize} as a yes or no, for what ends rather than answers (the console's live feed). */
export function allows(principal: AdminPrincipal, right: AdminRight, target: AccessTarget, store: Store): boolean {
  try {
    authorize(principal, right, target, store, 'a check');
    return true;
  } catch (error) {
    if (error instanceof ForbiddenError || error instanceof NotFoundError) return false;
    throw error;
  }
}
