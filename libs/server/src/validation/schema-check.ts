/**
 * Running a valibot schema on untrusted input and turning its first issue
 * into a {@link ValidationError} that names the JSON path at fault.
 */
import * as v from 'valibot';
import { appendJsonPath } from '../json/json-path.js';
import { describeType } from './json-type.js';
import { ValidationError } from './validation-error.js';

/**
 * Checks `value` against `schema` and returns the schema's output.
 *
 * Every schema of `validation/` gives its own messages, in the form
 * `must be …, got <JSON type>`. Should an issue still carry valibot's default
 * message (`Invalid type: Expected … but received "…"`), it is replaced: that
 * message quotes the value, which may be a secret.
 *
 * @param path - where `value` sits, the prefix of the error's path.
 * @throws ValidationError naming the path of the first issue.
 */
export function checkSchema<TSchema extends v.GenericSchema>(
  schema: TSchema,
  value: unknown,
  path: string,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, value, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const at = (issue.path ?? []).reduce<string>(
    (prefix, item) => appendJsonPath(prefix, item.key as string | number),
    path,
  );
  const problem = issue.message.startsWith('Invalid ')
    ? `must be ${issue.expected ?? 'something else'}, got ${describeType(issue.input)}`
    : issue.message;
  throw new ValidationError(at, problem);
}

/** The message `schema` gives for `value`, or `undefined` when `value` passes. */
export function messageOf(schema: v.GenericSchema, value: unknown): string | undefined {
  return v.safeParse(schema, value, { abortEarly: true }).issues?.[0].message;
}
