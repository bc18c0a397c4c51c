import * as api from '../index.js';
import { HttpError } from './http-error.js';
import { VaneServerError } from './vane-server-error.js';
import {
  AdminRequestError,
  AnswerCheckUnavailableError,
  OpenApiMismatchError,
  WaitTimeoutError,
} from '../testing/index.js';

describe('VaneServerError: one base, stable codes', () => {
  const cause = new Error('underlying');
  const errors: Array<[VaneServerError, string, string]> = [
    [new api.SeedError('seed.json', 'services.x', 'bad', { cause }), 'SeedError', 'VANE_LOCAL_SEED_INVALID'],
    [new api.ValidationError('flag.ab', 'bad', { cause }), 'ValidationError', 'VANE_LOCAL_INVALID_INPUT'],
    [new api.NotFoundError('no flag "x"', { cause }), 'NotFoundError', 'VANE_LOCAL_NOT_FOUND'],
    [new api.JournalFileError('damaged', { cause }), 'JournalFileError', 'VANE_LOCAL_JOURNAL_INVALID'],
    [new api.JournalWriteError('cannot write', { cause }), 'JournalWriteError', 'VANE_LOCAL_JOURNAL_WRITE_FAILED'],
    [new api.StateChangeError('no service', { cause }), 'StateChangeError', 'VANE_LOCAL_STATE_MISMATCH'],
    [new api.ConfigError('--port', 'bad', { cause }), 'ConfigError', 'VANE_CONFIG_INVALID'],
    [
      new api.StoreUnavailableError('cannot commit', { cause }),
      'StoreUnavailableError',
      'VANE_SERVER_STORE_UNAVAILABLE',
    ],
    [
      new api.CommitOutcomeUnknownError('no answer', { cause }),
      'CommitOutcomeUnknownError',
      'VANE_SERVER_COMMIT_OUTCOME_UNKNOWN',
    ],
    [new api.StoreOpenError('schema too new', { cause }), 'StoreOpenError', 'VANE_SERVER_STORE_REFUSED'],
    [
      new api.StoreUnreachableError('cannot reach', { cause }),
      'StoreUnreachableError',
      'VANE_SERVER_STORE_UNREACHABLE',
    ],
    [new api.RootKeyMissingError('needs rk_1', ['rk_1'], { cause }), 'RootKeyMissingError', 'VANE_ROOT_KEY_MISSING'],
    [new api.RootKeyError('not a key', { cause }), 'RootKeyError', 'VANE_ROOT_KEY_INVALID'],
    [new api.SealedDataError('moved', { cause }), 'SealedDataError', 'VANE_SEALED_DATA_INVALID'],
    [new api.ForbiddenError('lacks read', 'read', { cause }), 'ForbiddenError', 'VANE_LOCAL_FORBIDDEN'],
    [new api.ConflictError('taken', { cause }), 'ConflictError', 'VANE_LOCAL_CONFLICT'],
    [new HttpError(404, 'not_found', 'no route', {}, {}, { cause }), 'HttpError', 'VANE_LOCAL_REQUEST_REFUSED'],
    [Object.assign(new WaitTimeoutError('revision 3', 10), { cause }), 'WaitTimeoutError', 'VANE_LOCAL_WAIT_TIMEOUT'],
    [
      Object.assign(new AdminRequestError('admin PUT x: 500', 500, ''), { cause }),
      'AdminRequestError',
      'VANE_LOCAL_ADMIN_REQUEST_FAILED',
    ],
    [
      Object.assign(new OpenApiMismatchError('GET /x: 200 with a body the document does not have'), { cause }),
      'OpenApiMismatchError',
      'VANE_TEST_OPENAPI_MISMATCH',
    ],
    [
      new AnswerCheckUnavailableError('needs Ajv', { cause }),
      'AnswerCheckUnavailableError',
      'VANE_TEST_ANSWER_CHECK_UNAVAILABLE',
    ],
  ];

  it.each(errors)('%s is a VaneServerError named %s with code %s and its cause', (error, name, code) => {
    expect(error).toBeInstanceOf(VaneServerError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error.cause).toBe(cause);
  });

  it('has a distinct code per class, and no cause member when none is given', () => {
    expect(new Set(errors.map(([, , code]) => code)).size).toBe(errors.length);
    expect('cause' in new api.NotFoundError('missing')).toBe(false);
  });

  it('keeps the wire code of an HTTP answer apart from its own', () => {
    const error = new HttpError(429, 'rate_limited', 'slow down');
    expect([error.code, error.protocolCode, error.status]).toEqual(['VANE_LOCAL_REQUEST_REFUSED', 'rate_limited', 429]);
  });

  it('is what in-process admin calls throw, with the wire codes of §3 unchanged on HTTP', async () => {
    const server = await api.startVaneServer({ seed: { services: { shop: { keys: ['svs_shop_k'] } } } });
    try {
      const missing = captured(() => server.admin.deleteFlag('shop', 'none'));
      expect([missing.code, missing.message]).toEqual(['VANE_LOCAL_NOT_FOUND', 'service "shop" has no flag "none"']);
      const invalid = captured(() => server.admin.setConfig('shop', 'a.b', {} as never));
      expect(invalid.code).toBe('VANE_LOCAL_INVALID_INPUT');
      expect(captured(() => server.publicKey('shop')).code).toBe('VANE_LOCAL_NOT_FOUND');
      expect(captured(() => server.revision('nope')).code).toBe('VANE_LOCAL_NOT_FOUND');
    } finally {
      await server.close();
    }
    await expect(api.startVaneServer({ seed: { services: { 'Bad Slug': {} } } })).rejects.toMatchObject({
      code: 'VANE_LOCAL_SEED_INVALID',
      name: 'SeedError',
    });
  });
});

function captured(action: () => unknown): VaneServerError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(VaneServerError);
    return error as VaneServerError;
  }
  throw new Error('expected a VaneServerError, nothing was thrown');
}
