import { ADMIN_RIGHTS, type AdminRight, type TokenScope } from '../domain/model.js';
import { parseSlug, SLUG_PATTERN } from './identifiers.js';
import { OWNER_ACTOR } from '../domain/actors.js';
import { parseObject, parseString, parseStringArray, rejectUnknownMembers } from './primitives.js';
import { fail } from './validation-error.js';

/** Token names: 1–64 characters of letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A new token's request (PROTOCOL §10), checked. */
export interface TokenRequest {
  name: string;
  scope: TokenScope;
  rights: AdminRight[];
}

/** A token name (see {@link TOKEN_NAME_PATTERN}). */
export function parseTokenName(value: unknown, path: string): string {
  const name = parseString(value, path);
  if (!TOKEN_NAME_PATTERN.test(name)) {
    fail(path, 'a token name is 1–64 characters of [A-Za-z0-9._-], starting with a letter or digit');
  }
  // The audit names the owner token `admin`: no other token may be mistaken for it.
  if (name === OWNER_ACTOR) fail(path, `"${OWNER_ACTOR}" is the owner token's name in the audit; choose another`);
  return name;
}

/** A project name: the same rules as a service slug. */
export function parseProjectName(value: unknown, path: string): string {
  const name = parseString(value, path);
  if (!SLUG_PATTERN.test(name))
    fail(path, 'a project name is 1–63 characters of [a-z0-9-], starting and ending with a letter or digit');
  return name;
}

/**
 * `{"name", "scope": {"projects": [...]} | {"services": [...]}, "rights": [...]}`:
 * `["*"]` as projects means every project; at least one right, each known.
 */
export function parseTokenRequest(value: unknown, path: string): TokenRequest {
  const body = parseObject(value, path);
  rejectUnknownMembers(body, ['name', 'scope', 'rights'], path);
  const name = parseTokenName(body['name'], `${path}.name`);
  const scopeJson = parseObject(body['scope'], `${path}.scope`);
  let scope: TokenScope;
  if ('projects' in scopeJson && !('services' in scopeJson)) {
    const projects = parseStringArray(scopeJson['projects'], `${path}.scope.projects`);
    projects.forEach((project, index) => {
      if (project !== '*') parseProjectName(project, `${path}.scope.projects[${index}]`);
    });
    if (projects.length === 0) fail(`${path}.scope.projects`, 'names at least one project, or "*" for all');
    scope = { projects: [...new Set(projects)] };
  } else if ('services' in scopeJson && !('projects' in scopeJson)) {
    const services = parseStringArray(scopeJson['services'], `${path}.scope.services`);
    // Slugs, as a service's own name: a scope of markup or empty names would be stored and shown as given.
    services.forEach((slug, index) => parseSlug(slug, `${path}.scope.services[${index}]`));
    if (services.length === 0) fail(`${path}.scope.services`, 'names at least one service');
    scope = { services: [...new Set(services)] };
  } else {
    fail(`${path}.scope`, 'must be {"projects": [...]} or {"services": [...]}');
  }
  const rights = parseStringArray(body['rights'], `${path}.rights`);
  if (rights.length === 0) fail(`${path}.rights`, `names at least one of ${ADMIN_RIGHTS.join(', ')}`);
  for (const [index, right] of rights.entries()) {
    if (!(ADMIN_RIGHTS as readonly string[]).includes(right)) {
      fail(`${path}.rights[${index}]`, `must be one of ${ADMIN_RIGHTS.join(', ')}`);
    }
  }
  return { name, scope, rights: [...new Set(rights)] as AdminRight[] };
}
