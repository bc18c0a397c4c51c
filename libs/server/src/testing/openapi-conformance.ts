/**
 * Checks an answer of the server against its OpenAPI document: the request
 * must match an operation of the document, the status must be one it lists,
 * and a JSON body must hold to its schema (Ajv, JSON Schema 2020-12: OpenAPI
 * 3.1's dialect). Used by `adminRequest` and `adminClient` (through
 * `answer-check.ts`, which loads Ajv only when a check is asked for) and by
 * the server's own e2e helpers (`test/support/http-client.ts`).
 *
 * Not checked: the console's own routes (`/console/...`, a UI, not the API;
 * its proxy of the admin API, `/console/api/admin/v1/...`, is checked as the
 * admin API, but for the console's own refusals: a missing session or CSRF
 * token), and CORS preflights (`OPTIONS`).
 */
import type Ajv2020Class from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';
import type { FormatsPlugin } from 'ajv-formats';
import type { OpenApiDocument, OpenApiMethod, OpenApiOperation } from '../openapi/openapi-types.js';
import { OpenApiMismatchError, type ReceivedAnswer } from './openapi-mismatch.js';

type Ajv = Ajv2020Class;

/** The id the document is added to Ajv under. */
const ROOT = 'vane-openapi';

const METHODS: readonly OpenApiMethod[] = ['get', 'put', 'post', 'patch', 'delete'];

/** Compiles the schema at `pointer` (its parts unescaped) inside the document. */
function compile(ajv: Ajv, pointer: readonly string[]): ValidateFunction {
  const fragment = pointer.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  return ajv.compile({ $ref: `${ROOT}#/${fragment}` });
}

/** The schema of each `/v1/stream` event's `data` (PROTOCOL §6), as the stream's answer in the document names them. */
const STREAM_EVENTS: Readonly<Record<string, string>> = {
  resync: 'ResyncEvent',
  patch: 'Patch',
  goaway: 'GoawayEvent',
};

/** The console's proxy of the admin API: checked as the admin API. */
const CONSOLE_PROXY = '/console/api';

interface Route {
  readonly template: string;
  readonly pattern: RegExp;
  readonly operations: Readonly<Partial<Record<OpenApiMethod, OpenApiOperation>>>;
}

/** Ajv's JSON Schema 2020-12 build (`ajv/dist/2020`) and the formats plugin (`ajv-formats`), as loaded. */
export interface AjvModules {
  readonly Ajv2020: typeof Ajv2020Class;
  readonly addFormats: FormatsPlugin;
}

/**
 * The document, its routes, and a validator per JSON answer: built once, never changed. Ajv is given, not
 * imported: the checks are loaded only by what asks for them (see `answer-check.ts`).
 */
export class OpenApiConformance {
  private readonly routes: readonly Route[];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly errorBody: ValidateFunction;
  private readonly consoleError: ValidateFunction;
  private readonly events: ReadonlyMap<string, ValidateFunction>;

  constructor(
    readonly document: OpenApiDocument,
    { Ajv2020, addFormats }: AjvModules,
  ) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // The document itself, so each answer's schema is compiled where it stands and its `#/components/...` resolve.
    ajv.addSchema({ $id: ROOT, paths: document.paths, components: document.components });
    this.errorBody = compile(ajv, ['components', 'schemas', 'Error']);
    this.events = new Map(
      Object.entries(STREAM_EVENTS).map(([event, schema]) => [event, compile(ajv, ['components', 'schemas', schema])]),
    );
    this.consoleError = ajv.compile({
      type: 'object',
      properties: { error: { type: 'string' }, message: { type: 'string' } },
      required: ['error', 'message'],
    });
    // Fixed paths first: `/admin/v1/audit/head` before any `{name}` that would also match it.
    this.routes = Object.entries(document.paths)
      .map(([template, item]) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        operations: item,
      }))
      .sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
    for (const route of this.routes) {
      for (const method of METHODS) {
        const operation = route.operations[method];
        if (operation === undefined) continue;
        for (const [status, response] of Object.entries(operation.responses)) {
          if (response.content?.['application/json'] === undefined) continue;
          const pointer = [
            'paths',
            route.template,
            method,
            'responses',
            status,
            'content',
            'application/json',
            'schema',
          ];
          this.validators.set(`${method} ${route.template} ${status}`, compile(ajv, pointer));
        }
      }
    }
  }

  /** @throws OpenApiMismatchError when the document does not describe `answer`. */
  check(answer: ReceivedAnswer): void {
    let path = answer.path.split('?')[0]!;
    const method = answer.method.toUpperCase();
    if (method === 'OPTIONS') return;
    const viaConsole = path.startsWith(`${CONSOLE_PROXY}/admin/v1/`);
    if (viaConsole) path = path.slice(CONSOLE_PROXY.length);
    else if (path.startsWith('/console/') || path === '/console') return;
    const what = `${method} ${answer.path} answered ${answer.status}`;
    const key = (method === 'HEAD' ? 'get' : method.toLowerCase()) as OpenApiMethod;
    const route = this.routes.find((candidate) => candidate.pattern.test(path) && candidate.operations[key]);
    if (route === undefined) {
      // A request the API has no operation for: only a refusal with the protocol's error body (the 404 "no route").
      if (answer.status >= 400 && answer.status < 500 && this.holds(this.errorBody, answer)) return;
      throw new OpenApiMismatchError(`${what}, and the OpenAPI document has no operation ${method} ${path}`);
    }
    const operation = route.operations[key]!;
    const response = operation.responses[String(answer.status)];
    if (response === undefined) {
      throw new OpenApiMismatchError(
        `${what}: the OpenAPI document's ${operation.operationId} (${method} ${route.template}) lists only ` +
          Object.keys(operation.responses).join(', '),
      );
    }
    const media = Object.keys(response.content ?? {});
    if (media.length === 0) {
      if (answer.text !== undefined && answer.text !== '')
        throw new OpenApiMismatchError(`${what} with a body the document does not have`);
      return;
    }
    const type = answer.contentType?.split(';')[0]!.trim();
    if (type === undefined || !media.includes(type)) {
      throw new OpenApiMismatchError(
        `${what} as ${type ?? 'no content type'}; the document says ${media.join(' or ')}`,
      );
    }
    if (type !== 'application/json' || answer.text === undefined || method === 'HEAD') return;
    // The console's own refusals (its session, its CSRF token) carry its own codes, in the protocol's shape.
    const consoleRefusal = viaConsole && answer.status >= 400;
    const validate = consoleRefusal
      ? this.consoleError
      : this.validators.get(`${key} ${route.template} ${answer.status}`)!;
    if (!this.holds(validate, answer)) {
      throw new OpenApiMismatchError(
        `${what} with a body that breaks the document's schema: ${JSON.stringify(validate.errors)}; body ${answer.text.slice(0, 500)}`,
      );
    }
  }

  /** @throws OpenApiMismatchError when a `/v1/stream` event is not one the document describes. */
  checkEvent(event: string | undefined, data: string): void {
    const validate = this.events.get(event ?? 'message');
    if (validate === undefined)
      throw new OpenApiMismatchError(`/v1/stream sent an event "${event}" the document does not have`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      throw new OpenApiMismatchError(`/v1/stream sent a ${event} event whose data is not JSON: ${data.slice(0, 200)}`);
    }
    if (!validate(parsed)) {
      throw new OpenApiMismatchError(
        `/v1/stream sent a ${event} event that breaks the document's schema: ${JSON.stringify(validate.errors)}; data ${data.slice(0, 500)}`,
      );
    }
  }

  private holds(validate: ValidateFunction, answer: ReceivedAnswer): boolean {
    if (answer.text === undefined) return true;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return false;
    }
    return validate(body);
  }
}
