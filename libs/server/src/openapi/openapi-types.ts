/**
 * The parts of an OpenAPI 3.1 document the server writes, typed as far as it
 * writes them. Schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect).
 */

/** A JSON Schema (2020-12), as a plain JSON object (declared beside the operations tables, which write them). */
export type { JsonSchema } from '../http/operations/answer-schemas.js';
import type { JsonSchema } from '../http/operations/answer-schemas.js';

/** An HTTP method, lower-case as OpenAPI keys operations. */
export type OpenApiMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** One parameter of an operation. */
export interface OpenApiParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
}

/** A header of an answer. */
export interface OpenApiHeader {
  readonly description: string;
  readonly schema: JsonSchema;
}

/** One media type of a body. */
export interface OpenApiMediaType {
  readonly schema: JsonSchema;
}

/** One answer of an operation, by status. */
export interface OpenApiResponse {
  readonly description: string;
  readonly headers?: Readonly<Record<string, OpenApiHeader>>;
  readonly content?: Readonly<Record<string, OpenApiMediaType>>;
}

/** A request body. */
export interface OpenApiRequestBody {
  readonly description: string;
  readonly required: boolean;
  readonly content: Readonly<Record<string, OpenApiMediaType>>;
}

/** One operation (a method of a path). */
export interface OpenApiOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  /** `[]` for an operation that takes no credential. */
  readonly security: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
  readonly parameters?: readonly OpenApiParameter[];
  readonly requestBody?: OpenApiRequestBody;
  readonly responses: Readonly<Record<string, OpenApiResponse>>;
  /** The admin right the operation needs (admin operations only). */
  readonly 'x-vane-right'?: string;
  /** The audit entry a success writes, or `none` (admin operations only). */
  readonly 'x-vane-audit'?: string;
}

/** A server an operation is reached at. */
export interface OpenApiServer {
  readonly url: string;
  readonly description: string;
  readonly variables?: Readonly<Record<string, { readonly default: string; readonly description: string }>>;
}

/** The operations of one path. */
export type OpenApiPathItem = Readonly<Partial<Record<OpenApiMethod, OpenApiOperation>>> & {
  readonly servers?: readonly OpenApiServer[];
  /** Parameters every operation of the path takes (its `{name}` members). */
  readonly parameters?: readonly OpenApiParameter[];
};

/** The document. */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly summary: string;
    readonly description: string;
    readonly license: { readonly name: string; readonly identifier: string };
  };
  readonly servers: readonly OpenApiServer[];
  readonly tags: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  readonly paths: Readonly<Record<string, OpenApiPathItem>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes: Readonly<Record<string, Readonly<Record<string, string>>>>;
  };
}
