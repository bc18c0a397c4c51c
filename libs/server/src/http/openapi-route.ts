import type { ServerResponse } from 'node:http';
import { sendJsonPayload } from './http-io.js';

/** Where the server's OpenAPI document is served. */
export const OPENAPI_PATH = '/admin/v1/openapi.json';

/**
 * Serves `GET /admin/v1/openapi.json` with no token: the document describes
 * the API, not this server's data (no service, key or token is in it), and
 * is the same as the `@vane/server/openapi.json` every install ships, so a
 * token would guard nothing, and client generators and CI can fetch it as
 * they fetch any OpenAPI URL. It is served only where the admin API is
 * (`--admin-listen`, never under a service's public host name). Rendered
 * once, at the first request.
 */
export class OpenApiRoute {
  #payload: Buffer | undefined;

  /**
   * @param document - builds the document (called once). Given by the server's wiring, so HTTP does not
   *   import the document's builder, which reads the routes' schemas and the admin operations table.
   */
  constructor(private readonly document: () => object) {}

  /** Whether this request is for the document. */
  matches(method: string | undefined, path: string): boolean {
    return path === OPENAPI_PATH && (method === 'GET' || method === 'HEAD');
  }

  /** Answers 200 with the document. */
  serve(res: ServerResponse): void {
    this.#payload ??= Buffer.from(JSON.stringify(this.document()));
    sendJsonPayload(res, 200, this.#payload, { 'cache-control': 'no-cache' });
  }
}
