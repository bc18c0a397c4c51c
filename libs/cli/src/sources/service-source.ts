/**
 * Reads a service's keys from its snapshot (`GET /v1/sync`, PROTOCOL §5)
 * with an API key. The snapshot holds values; they are dropped as read.
 *
 * @packageDocumentation
 */
import { CliError } from '../cli-error.js';
import type { KeyCatalog } from '../catalog/key-catalog.js';
import { catalogOf } from './catalog-reader.js';
import { answerJson, httpCall, protocolError } from './http-json.js';

/** Where a service is and the key to read it with. */
export interface ServiceSourceOptions {
  /** The service's base URL (`http://shop.localhost:4400`). */
  readonly baseUrl: string;
  /** A secret key (`svs_…`) sees secret names too; a public key only configs and flags. */
  readonly apiKey: string;
}

/** Parses a base URL option. @throws CliError `VANE_CLI_USAGE` */
export function parseUrl(text: string, option: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Reported below.
  }
  throw new CliError('VANE_CLI_USAGE', `${option}: "${text}" is not an http(s) URL`);
}

/** Reads the service's keys. @throws CliError */
export async function readServiceKeys(options: ServiceSourceOptions): Promise<KeyCatalog> {
  const base = parseUrl(options.baseUrl, '--base-url');
  const url = new URL('v1/sync', base.href.endsWith('/') ? base : new URL(`${base.href}/`));
  const where = `the service at ${base.origin}`;
  const answer = await httpCall({ url, what: 'the service', headers: { 'x-service-api-key': options.apiKey } });
  if (answer.headers['vane-protocol'] === undefined) {
    throw new CliError('VANE_CLI_BAD_ANSWER', `${base.origin} is not a Vane service (no Vane-Protocol header)`);
  }
  if (answer.status === 401) throw new CliError('VANE_CLI_REFUSED', `${where} refused the API key (unauthorized)`);
  if (answer.status !== 200) throw new CliError('VANE_CLI_REFUSED', `${where} answered ${protocolError(answer)}`);
  const body = answerJson(answer, where);
  if (typeof body !== 'object' || body === null) throw new CliError('VANE_CLI_BAD_ANSWER', `${where}: not a snapshot`);
  const snapshot = body as { service?: { slug?: unknown }; configs?: unknown; flags?: unknown; secrets?: unknown };
  const slug = typeof snapshot.service?.slug === 'string' ? snapshot.service.slug : base.hostname;
  return catalogOf(
    snapshot,
    { slug, origin: `the service "${slug}" at ${base.origin}` },
    { abKnown: false, where: 'the snapshot' },
  );
}
