/**
 * The fixed set of `route` labels of the HTTP metrics: a metric labelled
 * with the raw path would grow a series per slug, key and typo.
 */
export type RouteLabel =
  | 'sync'
  | 'stream'
  | 'evaluate_ab'
  | 'token_exchange'
  | 'secrets'
  | 'admin'
  | 'console'
  | 'healthz'
  | 'readyz'
  | 'metrics'
  | 'other';

/** The route label of a request path (without its query). */
export function routeLabel(path: string): RouteLabel {
  const [, first, second, third] = path.split('/');
  if (first === 'v1') {
    if (second === 'sync') return 'sync';
    if (second === 'stream') return 'stream';
    if (second === 'flags' && third === 'evaluate-ab') return 'evaluate_ab';
    if (second === 'auth' && third === 'token-exchange') return 'token_exchange';
    if (second === 'secrets') return 'secrets';
    return 'other';
  }
  if (first === 'admin') return 'admin';
  if (first === 'console') return 'console';
  if (first === 'healthz' || first === 'readyz' || first === 'metrics') return first;
  return 'other';
}
