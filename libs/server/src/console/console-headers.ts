import type { ServerResponse } from 'node:http';

/**
 * Nothing but the console's own files may load, run, connect or frame it:
 * no inline script or style, no other origin, no plugins, no `<base>`, and
 * forms may post only back to the console.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sets the security headers every console answer carries, the forwarded admin answers included. */
export function setConsoleHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONSOLE_CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
}
