/**
 * The line every adapter prints when the blocking initial sync fails: what
 * happened and what to do about it.
 *
 * @packageDocumentation
 */

const HINTS: Readonly<Record<string, string>> = {
  VANE_UNAUTHORIZED:
    'wrong key: set apiKey to a secret key (svs_…) of this very service, as shown in the console; a key of another service or a revoked key is refused too',
  VANE_NOT_FOUND: 'wrong slug: baseUrl must be the base URL shown for the service in the console (https://<slug>.…)',
  VANE_BILLING_OVERDUE:
    'billing: the tenant has invoices overdue by more than 14 days; settle them in the console, then restart',
  VANE_NOT_A_VANE_SERVICE:
    'wrong address: something other than a Vane service answers at baseUrl; check its host and port (the local server prints its URL at start), or the proxy in between',
  VANE_TRANSPORT:
    'unreachable: check baseUrl, DNS, proxy settings (HTTPS_PROXY/NO_PROXY) and firewalls, or raise timeoutMs; to start during an outage from the last snapshot, set lastKnownGood',
  VANE_RATE_LIMITED: 'rate limited: too many starts at once; retry after the delay the error gives',
  VANE_QUARANTINED: 'quarantined: this caller is quarantined by the service; retry after the date the error gives',
  VANE_INVALID_ARGUMENT: 'invalid option: fix the option the message names',
  VANE_UNEXPECTED_RESPONSE: 'unexpected answer: is baseUrl the Vane service and not a proxy or another site?',
};

/**
 * What to do about an initial-sync failure, by error `code`.
 * @returns a sentence for people, or undefined for a code without advice.
 */
export function initialSyncHint(code: string | undefined): string | undefined {
  return code === undefined ? undefined : HINTS[code];
}

/**
 * The log line of an initial-sync failure: `initial sync failed, the app
 * cannot start (CODE): message`, then `What to do: …` on a line of its own
 * when the code has advice. The client's messages hold no key and no secret value.
 *
 * @param err - what `VaneClient.create()` rejected with.
 */
export function initialSyncFailureLine(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const hint = initialSyncHint(typeof code === 'string' ? code : undefined);
  const message = err instanceof Error ? err.message : String(err);
  return `initial sync failed, the app cannot start${typeof code === 'string' ? ` (${code})` : ''}: ${message}${hint ? `\n  What to do: ${hint}` : ''}`;
}
