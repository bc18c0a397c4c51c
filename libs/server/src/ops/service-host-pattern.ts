/**
 * The host names of the services under a public URL template:
 * `https://{slug}.vane.acme.internal` gives `/^[^.]+\.vane\.acme\.internal$/`.
 * Matched against a `Host` without its port, lower-cased.
 */
export function serviceHostPattern(publicUrl: string): RegExp {
  const hostname = new URL(publicUrl.replaceAll('{slug}', 'vane-slug-placeholder')).hostname.toLowerCase();
  const escaped = hostname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('vane-slug-placeholder', '[^.]+');
  return new RegExp(`^${escaped}$`);
}
