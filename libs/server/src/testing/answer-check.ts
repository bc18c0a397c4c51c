/**
 * The OpenAPI check of the answers `adminRequest` and `adminClient`
 * receive, loaded only when asked for: Ajv (`ajv` 8 and `ajv-formats` 3,
 * optional peer dependencies of `@vane/server`) and the document's builder
 * are imported at the first check, so `@vane/server/testing` installs and
 * loads nothing more for a project that does not check.
 */
import { isModuleNotFound } from '@vane/common';
import type Ajv2020Class from 'ajv/dist/2020';
import type { FormatsPlugin } from 'ajv-formats';
import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';
import type { OpenApiConformance } from './openapi-conformance.js';
import type { ReceivedAnswer } from './openapi-mismatch.js';

/**
 * Whether the answers of the admin API are checked against the server's OpenAPI document:
 * `'when-installed'` (the default) checks when Ajv 8 and `ajv-formats` can be loaded and skips the check
 * otherwise; `true` always checks (and fails with {@link AnswerCheckUnavailableError} without them); `false`
 * never checks.
 */
export type AnswerCheck = boolean | 'when-installed';

/** A check of the answers was asked for (`checkAnswers: true`) and Ajv 8 or `ajv-formats` cannot be loaded. */
export class AnswerCheckUnavailableError extends VaneServerError {
  readonly code = 'VANE_TEST_ANSWER_CHECK_UNAVAILABLE' as const;

  /** @param options - `cause`: the failed import of Ajv or `ajv-formats`. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}

/** The checks, once loaded; or why Ajv could not be loaded (the failed import). */
let loading: Promise<OpenApiConformance | { readonly missing: unknown }> | undefined;

/** Ajv's module as either module system hands it over: the class is its `default`. */
function defaultExport<T>(loaded: { readonly default?: unknown }): T {
  const inner = loaded.default as { readonly default?: unknown } | undefined;
  return (typeof inner === 'function' ? inner : (inner?.default ?? loaded)) as T;
}

async function load(): Promise<OpenApiConformance | { readonly missing: unknown }> {
  let Ajv2020: typeof Ajv2020Class;
  let addFormats: FormatsPlugin;
  try {
    Ajv2020 = defaultExport(await import('ajv/dist/2020.js'));
    addFormats = defaultExport(await import('ajv-formats'));
  } catch (error) {
    if (isModuleNotFound(error)) return { missing: error };
    throw error;
  }
  const [{ OpenApiConformance }, { vaneOpenApiDocument }] = await Promise.all([
    import('./openapi-conformance.js'),
    import('../openapi/index.js'),
  ]);
  return new OpenApiConformance(vaneOpenApiDocument(), { Ajv2020, addFormats });
}

/**
 * Checks `answer` against the server's OpenAPI document, as `check` says.
 *
 * @returns whether it was checked.
 * @throws OpenApiMismatchError when the document does not describe the answer.
 * @throws AnswerCheckUnavailableError when `check` is `true` and Ajv 8 or `ajv-formats` cannot be loaded.
 */
export async function checkAnswer(answer: ReceivedAnswer, check: AnswerCheck): Promise<boolean> {
  if (check === false) return false;
  const conformance = await (loading ??= load());
  if ('missing' in conformance) {
    if (check === true) {
      throw new AnswerCheckUnavailableError(
        'checking the admin API answers needs Ajv, optional peer dependencies of @vane/server: ' +
          'npm install --save-dev ajv@8 ajv-formats@3',
        { cause: conformance.missing },
      );
    }
    return false;
  }
  conformance.check(answer);
  return true;
}
