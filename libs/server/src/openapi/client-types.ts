/**
 * The admin API's TypeScript types, rendered from the OpenAPI document: the
 * source of `src/testing/admin-operation-types.ts`, which types
 * `adminClient` (`@vane/server/testing`) — each operation's method, path,
 * body, query and success answer, and the schemas they name. Written by
 * `npm run admin-catalog -w @vane/server`; `admin-client.spec.ts` fails
 * while the file differs from what this renders (after prettier).
 */
import type { JsonSchema, OpenApiDocument, OpenApiMethod } from './openapi-types.js';

/** Where the types are, from the repository's root. */
export const ADMIN_TYPES_FILE = 'libs/server/src/testing/admin-operation-types.ts';

/** A schema of the document the renderer cannot say in TypeScript (a keyword it does not know). */
export class UntypableSchemaError extends Error {
  /** Stable error code. */
  readonly code = 'VANE_OPENAPI_UNTYPABLE_SCHEMA' as const;
  override readonly name = 'UntypableSchemaError';
}

const COMPONENT_PREFIX = '#/components/schemas/';
const METHODS: readonly OpenApiMethod[] = ['get', 'put', 'post', 'patch', 'delete'];
const ADMIN_PREFIX = '/admin/v1';
/** Keywords that only narrow values of a type TypeScript already gives (or say nothing of the type). */
const NARROWING = new Set([
  'description',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'default',
  'examples',
]);
const TYPE_KEYWORDS = new Set(['type', '$ref', 'const', 'enum', 'anyOf', 'oneOf', 'properties', 'required', 'items']);

/** Renders JSON Schemas as TypeScript types, collecting the components they name. */
class TypeRenderer {
  readonly named = new Set<string>();

  /** @throws UntypableSchemaError for a keyword that shapes the type and is not rendered. */
  render(schema: JsonSchema): string {
    for (const keyword of Object.keys(schema)) {
      if (!NARROWING.has(keyword) && !TYPE_KEYWORDS.has(keyword) && keyword !== 'additionalProperties') {
        throw new UntypableSchemaError(`the keyword ${keyword} of ${JSON.stringify(schema).slice(0, 200)}`);
      }
    }
    const ref = schema['$ref'];
    if (typeof ref === 'string') {
      if (!ref.startsWith(COMPONENT_PREFIX)) throw new UntypableSchemaError(`the reference ${ref}`);
      const name = ref.slice(COMPONENT_PREFIX.length);
      this.named.add(name);
      return `AdminApiSchemas[${JSON.stringify(name)}]`;
    }
    if ('const' in schema) return JSON.stringify(schema['const']);
    if (Array.isArray(schema['enum'])) return union(schema['enum'].map((value) => JSON.stringify(value)));
    const alternatives = (schema['anyOf'] ?? schema['oneOf']) as readonly JsonSchema[] | undefined;
    if (alternatives !== undefined) return union(alternatives.map((alternative) => this.render(alternative)));
    const type = schema['type'];
    if (Array.isArray(type)) return union(type.map((one: unknown) => this.render({ ...schema, type: one })));
    switch (type) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array': {
        const items = schema['items'] as JsonSchema | undefined;
        return `readonly ${items === undefined ? 'unknown' : parenthesized(this.render(items))}[]`;
      }
      case 'object':
        return this.object(schema);
      case undefined:
        return 'unknown';
      default:
        throw new UntypableSchemaError(`the type ${String(type)}`);
    }
  }

  private object(schema: JsonSchema): string {
    const properties = (schema['properties'] ?? {}) as Readonly<Record<string, JsonSchema>>;
    const required = new Set((schema['required'] ?? []) as readonly string[]);
    const members = Object.entries(properties).map(
      ([name, member]) => `readonly ${JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${this.render(member)};`,
    );
    const additional = schema['additionalProperties'] as JsonSchema | boolean | undefined;
    const rest =
      additional === false
        ? undefined
        : typeof additional === 'object'
          ? this.render(additional)
          : members.length === 0
            ? 'unknown'
            : undefined;
    if (rest !== undefined && members.length > 0)
      return `{ ${members.join(' ')} } & { readonly [key: string]: ${rest} }`;
    if (rest !== undefined) return `{ readonly [key: string]: ${rest} }`;
    return `{ ${members.join(' ')} }`;
  }
}

function union(types: readonly string[]): string {
  const distinct = [...new Set(types)];
  return distinct.length === 0 ? 'never' : distinct.join(' | ');
}

function parenthesized(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type;
}

/** A TSDoc comment's text, made safe to close. */
function comment(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}

/**
 * The text of {@link ADMIN_TYPES_FILE} for `document` (its admin operations and the components their bodies and
 * answers name), before prettier.
 *
 * @throws UntypableSchemaError for a schema the renderer does not know how to type.
 */
export function adminTypesSource(document: OpenApiDocument): string {
  const renderer = new TypeRenderer();
  const operations: string[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    if (!template.startsWith(`${ADMIN_PREFIX}/`) || template === `${ADMIN_PREFIX}/openapi.json`) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const body = operation.requestBody?.content['application/json']?.schema;
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      const answers = Object.entries(operation.responses)
        .filter(([status]) => status.startsWith('2'))
        .map(([, response]) => response.content?.['application/json']?.schema ?? {});
      operations.push(
        `/** ${comment(operation.summary)} (\`${method.toUpperCase()} ${template}\`). */`,
        `readonly ${operation.operationId}: {`,
        `readonly method: '${method.toUpperCase()}';`,
        `readonly path: '${template.slice(ADMIN_PREFIX.length)}';`,
        `readonly body: ${body === undefined ? 'never' : renderer.render(body)};`,
        `readonly bodyRequired: ${operation.requestBody?.required === true};`,
        `readonly query: ${union(query.map((parameter) => `'${parameter.name}'`))};`,
        `readonly answer: ${union(answers.map((answer) => renderer.render(answer)))};`,
        '};',
      );
    }
  }
  const components = new Map<string, string>();
  for (
    let pending = [...renderer.named];
    pending.length > 0;
    pending = [...renderer.named].filter((n) => !components.has(n))
  ) {
    for (const name of pending) {
      const schema = document.components.schemas[name];
      if (schema === undefined) throw new UntypableSchemaError(`the reference to ${name}, which the document lacks`);
      const description = typeof schema['description'] === 'string' ? `: ${schema['description']}` : '';
      components.set(name, `/** \`${name}\`${comment(description)}. */\nreadonly ${name}: ${renderer.render(schema)};`);
    }
  }
  return [
    '/**',
    " * The admin API's types, as the OpenAPI document (`@vane/server/openapi.json`) gives them: what types",
    ' * `adminClient`. Generated from the operations table by `npm run admin-catalog -w @vane/server`; do not edit:',
    ' * `admin-client.spec.ts` fails while the two differ.',
    ' *',
    ' * @packageDocumentation',
    ' */',
    '',
    "/** The schemas of the OpenAPI document's `components.schemas` that the admin API's bodies and answers name. */",
    'export interface AdminApiSchemas {',
    ...[...components.keys()].sort().map((name) => components.get(name)!),
    '}',
    '',
    '/** Each admin operation by its name (`operationId`): method, path under `/admin/v1`, body, query and answer. */',
    'export interface AdminOperationTypes {',
    ...operations,
    '}',
    '',
  ].join('\n');
}
