/** An interface and port to listen on (`--admin-listen 127.0.0.1:4401`, `[::1]:4402`). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** Reads `HOST:PORT` (IPv6 in brackets); returns what is wrong as text otherwise. */
export function parseListenAddress(value: string): ListenAddress | string {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) return 'expected HOST:PORT (127.0.0.1:4401, [::1]:4401)';
  return { host: match[1] ?? match[2]!, port };
}

/** `http://host:port`, brackets around an IPv6 host. */
export function listenUrl(scheme: 'http' | 'https', host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
