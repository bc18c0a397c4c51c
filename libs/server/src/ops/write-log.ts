import { redactKey } from '../domain/store.js';
import type { LogFields } from '../observability/logger.js';
import type { StateChange } from '../domain/state-change.js';
import type { RequestScope } from './request-scope.js';

/**
 * The log line of one write: who, what (the kind of change, the service,
 * the item's name) and the revision it made; never a value, and keys only
 * redacted. `scope` is the request that made it, if any.
 */
export function describeWrite(
  change: StateChange,
  scope: RequestScope | undefined,
): { message: string; fields: LogFields } {
  const slug = 'slug' in change ? change.slug : undefined;
  const revision = 'revision' in change ? change.revision : undefined;
  let item: string | undefined;
  if (change.type === 'key') item = typeof change.key === 'string' ? redactKey(change.key) : change.key.hint;
  else if (change.type === 'trust') item = change.name;
  else if ('key' in change) item = change.key;
  // A secret change carries its own actor (a key, redacted, or a workload); a wrong admin token's count has none
  // (whoever sent it is who the credential_refused line names); other writes come from the admin API.
  const actor =
    'audit' in change && change.audit
      ? change.audit.actor
      : change.type === 'guess.wrong'
        ? 'unauthenticated'
        : (scope?.actor ?? (scope ? 'admin' : 'in-process'));
  const what = [change.type, slug, item].filter((part) => part !== undefined).join(' ');
  return {
    message: `write ${what}${revision === undefined ? '' : ` → revision ${revision}`} by ${actor}`,
    fields: {
      event: 'write',
      change: change.type,
      service: slug,
      item,
      revision,
      actor,
      request_id: scope?.requestId,
    },
  };
}
