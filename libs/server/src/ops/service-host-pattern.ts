/**
 * The host names of the services under a public URL template:
 * `https://{slug}.vane.acme.internal` gives `/^[^.]+\.vane\.acme\.internal$/`.
 * Matched against a `Host` without its port, lower-cased.
 */
export function serviceHostPattern(publicUrl: string): RegExp {
  // Compared with hostName's form of a Host header: lower-cased, without one trailing dot.
  const hostname = new URL(publicUrl.replaceAll('{slug}', 'vane-slug-placeholder')).hostname
    .toLowerCase()
    .replace(/\.$/, '');
  const escaped = hostname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('vane-slug-placeholder', '[^.]+');
  return new RegExp(`^${escaped}$`);
}
