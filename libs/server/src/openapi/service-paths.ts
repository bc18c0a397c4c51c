/**
 * The service interface under `/v1/` (PROTOCOL §5–§9) and the ops routes, as
 * OpenAPI paths.
 */
import { evaluateAbBody, tokenExchangeBody } from '../http/request-bodies.js';
import { secretWriteSchema } from '../validation/index.js';
import { KEY_PATTERN } from '../validation/index.js';
import { inputSchema } from './input-schemas.js';
import { errorAnswers, jsonAnswer, PROTOCOL_HEADER } from './openapi-responses.js';
import type { OpenApiOperation, OpenApiParameter, OpenApiPathItem, OpenApiServer } from './openapi-types.js';
import { ref } from '../http/operations/answer-schemas.js';

/** Where a service is reached: its slug is the first label of the host name (PROTOCOL §1). */
const SERVICE_SERVERS: readonly OpenApiServer[] = [
  {
    url: 'https://{slug}.{domain}',
    description: "A service, named by its host name's first label; on a laptop `http://{slug}.localhost:4400`",
    variables: {
      slug: { default: 'shop', description: "The service's slug" },
      domain: {
        default: 'vane.acme.internal',
        description: 'The domain of `--public-url`',
      },
    },
  },
];

/** A key, or a session from the token exchange (PROTOCOL §2). */
const SERVICE_CREDENTIALS: OpenApiOperation['security'] = [{ ServiceApiKey: [] }, { ServiceSession: [] }];

const headers = { 'Vane-Protocol': PROTOCOL_HEADER };

/** The refusals every authenticated `/v1/` call can meet (PROTOCOL §2, §3). */
const CALLER_REFUSALS = [400, 401, 402, 404, 429];

const keyParameter: OpenApiParameter = {
  name: 'key',
  in: 'path',
  required: true,
  description: 'The secret key, percent-encoded',
  schema: { type: 'string', pattern: KEY_PATTERN.source },
};

function service(
  operation: Omit<OpenApiOperation, 'tags' | 'security'>,
  security: OpenApiOperation['security'] = SERVICE_CREDENTIALS,
): OpenApiOperation {
  return { ...operation, tags: ['service'], security };
}

/** The `/v1/` paths. */
export function servicePaths(): Record<string, OpenApiPathItem> {
  return { ...syncPath(), ...streamPath(), ...requestPaths(), ...secretWritePaths() };
}

/** The path of the snapshot. */
function syncPath(): Record<string, OpenApiPathItem> {
  return {
    '/v1/sync': {
      servers: SERVICE_SERVERS,
      get: service({
        operationId: 'sync',
        summary: "The service's snapshot",
        description:
          'Everything the caller may see: configs, flags and (for a secret key of a backend service) secrets ' +
          '(PROTOCOL §5). With `If-None-Match` equal to the current `ETag`, answers 304 and no body.',
        parameters: [
          {
            name: 'If-None-Match',
            in: 'header',
            required: false,
            description: 'The `ETag` of a snapshot held',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': jsonAnswer('The snapshot', ref('Snapshot'), {
            ...headers,
            ETag: {
              description: 'A strong validator of exactly these bytes',
              schema: { type: 'string' },
            },
          }),
          '304': {
            description: 'The snapshot held is current',
            headers: {
              ...headers,
              ETag: {
                description: 'The current ETag',
                schema: { type: 'string' },
              },
            },
          },
          ...errorAnswers(CALLER_REFUSALS, headers),
        },
      }),
    },
  };
}

/** The path of the live updates. */
function streamPath(): Record<string, OpenApiPathItem> {
  return {
    '/v1/stream': {
      servers: SERVICE_SERVERS,
      get: service({
        operationId: 'stream',
        summary: 'Live updates (server-sent events)',
        description:
          'Events `resync` (`{"revision"}`), `patch` (the `Patch` schema) and `goaway` (`{"reconnect_in_ms"}`), ' +
          'each `data` one line of JSON, `id` the revision; `: ping` every 15 s (PROTOCOL §6).',
        parameters: [
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'The last revision applied: the server replays the patches after it, or sends `resync`',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'The event stream',
            headers,
            content: {
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description:
                    'Server-sent events, each `data` one line of JSON: a `ResyncEvent`, a `Patch` or a `GoawayEvent`',
                  contentSchema: {
                    oneOf: [ref('ResyncEvent'), ref('Patch'), ref('GoawayEvent')],
                  },
                },
              },
            },
          },
          ...errorAnswers(CALLER_REFUSALS, headers),
        },
      }),
    },
  };
}

/** The paths a client asks something of: A/B evaluation, the workload-identity exchange. */
function requestPaths(): Record<string, OpenApiPathItem> {
  return {
    '/v1/flags/evaluate-ab': {
      servers: SERVICE_SERVERS,
      post: service({
        operationId: 'evaluateAb',
        summary: "Evaluates flags' A/B rules for a user",
        description: 'One to 200 flag keys; attribute values are strings (PROTOCOL §7).',
        requestBody: {
          description: 'The flags, the user and its attributes',
          required: true,
          content: {
            'application/json': { schema: inputSchema(evaluateAbBody) },
          },
        },
        responses: {
          '200': jsonAnswer('Each flag for this user', ref('EvaluateAbAnswer'), headers),
          ...errorAnswers([...CALLER_REFUSALS, 403, 413], headers),
        },
      }),
    },
    '/v1/auth/token-exchange': {
      servers: SERVICE_SERVERS,
      post: service(
        {
          operationId: 'tokenExchange',
          summary: "Exchanges a platform's workload identity for a session",
          description:
            'No key: the platform token proves who calls, and a trust of the service decides (PROTOCOL §8). ' +
            'The session goes in `Authorization: Bearer` instead of the key header.',
          requestBody: {
            description: 'The platform and its identity token',
            required: true,
            content: {
              'application/json': { schema: inputSchema(tokenExchangeBody) },
            },
          },
          responses: {
            '200': jsonAnswer('The session', ref('TokenExchangeAnswer'), headers),
            ...errorAnswers([400, 401, 402, 404, 413, 429], headers),
          },
        },
        [],
      ),
    },
  };
}

/** The paths a secret key writes secrets at. */
function secretWritePaths(): Record<string, OpenApiPathItem> {
  return {
    '/v1/secrets/{key}': {
      servers: SERVICE_SERVERS,
      parameters: [keyParameter],
      put: service({
        operationId: 'setSecret',
        summary: 'Writes a new version of a secret (secret key only)',
        description: 'Versions start at 1 and never repeat (PROTOCOL §9).',
        requestBody: {
          description: 'The value and its type',
          required: true,
          content: {
            'application/json': { schema: inputSchema(secretWriteSchema) },
          },
        },
        responses: {
          '200': jsonAnswer('The version written', ref('SecretWriteAnswer'), headers),
          ...errorAnswers([...CALLER_REFUSALS, 413, 503, 504], headers),
        },
      }),
      delete: service({
        operationId: 'deleteSecret',
        summary: 'Deletes a secret, every version (secret key only)',
        description: 'PROTOCOL §9.',
        responses: {
          '204': { description: 'Deleted', headers },
          ...errorAnswers([...CALLER_REFUSALS, 503, 504], headers),
        },
      }),
    },
    '/v1/secrets/{key}/versions/{version}': {
      servers: SERVICE_SERVERS,
      parameters: [
        keyParameter,
        {
          name: 'version',
          in: 'path',
          required: true,
          description: 'The version to delete',
          schema: { type: 'integer', minimum: 1 },
        },
      ],
      delete: service({
        operationId: 'deleteSecretVersion',
        summary: 'Deletes one version of a secret (secret key only)',
        description: 'Deleting the only remaining version deletes the secret (PROTOCOL §9).',
        responses: {
          '204': { description: 'Deleted', headers },
          ...errorAnswers([...CALLER_REFUSALS, 503, 504], headers),
        },
      }),
    },
  };
}

const TEXT_405 = {
  description: 'A method other than GET or HEAD',
  content: { 'text/plain': { schema: { type: 'string' } } },
};

/** On a listener that does not serve the ops routes (`--ops-listen` elsewhere): the 404 "no route". */
const OPS_NOT_HERE = errorAnswers([404]);

/** An ops route: no credential (bind `--ops-listen` where only the platform reaches it). */
function ops(operation: Omit<OpenApiOperation, 'tags' | 'security'>): OpenApiOperation {
  return { ...operation, tags: ['ops'], security: [] };
}

/** `/healthz`, `/readyz` and `/metrics`. */
export function opsPaths(): Record<string, OpenApiPathItem> {
  return {
    '/healthz': {
      get: ops({
        operationId: 'healthz',
        summary: 'Liveness: the process answers',
        description: 'Always 200 while the process runs.',
        responses: {
          '200': jsonAnswer('Alive', {
            type: 'object',
            properties: { status: { const: 'ok' } },
            required: ['status'],
          }),
          '405': TEXT_405,
          ...OPS_NOT_HERE,
        },
      }),
    },
    '/readyz': {
      get: ops({
        operationId: 'readyz',
        summary: 'Readiness: every check passes',
        description: "200 while every readiness check passes, 503 otherwise, with each check's outcome.",
        responses: {
          '200': jsonAnswer('Ready', ref('Readiness')),
          '503': jsonAnswer('Not ready', ref('Readiness')),
          '405': TEXT_405,
          ...OPS_NOT_HERE,
        },
      }),
    },
    '/metrics': {
      get: ops({
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description: 'The Prometheus text exposition format.',
        responses: {
          '200': {
            description: 'The metrics',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          '405': TEXT_405,
          ...OPS_NOT_HERE,
        },
      }),
    },
  };
}
