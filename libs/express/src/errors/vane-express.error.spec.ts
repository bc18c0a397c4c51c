import { VaneError } from '@vane/client';
import { InvalidArgumentError } from '@vane/client/errors';
import { AbContextError } from './ab-context.error.js';
import { VaneExpressError } from './vane-express.error.js';

describe('@vane/express errors', () => {
  it('AbContextError is a VaneError with a stable code, a status and its cause', () => {
    const cause = new InvalidArgumentError('attribute "age" must be a string, got number');
    const error = new AbContextError('abContext: no user', { cause });
    expect(error).toBeInstanceOf(VaneError);
    expect(error).toBeInstanceOf(VaneExpressError);
    expect(error).toMatchObject({ code: 'VANE_AB_CONTEXT_INVALID', status: 400, name: 'AbContextError' });
    expect(error.cause).toBe(cause);
  });
});
