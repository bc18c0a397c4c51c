import { redactUrlPassword, scrubLogText } from './log-text.js';

describe('scrubLogText', () => {
  it('redacts service keys and scoped tokens to their redacted form, which names which one', () => {
    expect(scrubLogText('key svs_shop_live_0123456789abcdef refused; svp_web_test_public too')).toBe(
      'key svs_…cdef refused; svp_…blic too',
    );
    expect(scrubLogText('token vat_AbCdEf0123456789xyz revoked')).toBe('token vat_…9xyz revoked');
  });

  it('masks JWTs, URL passwords and Authorization credentials', () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzaG9wIn0.c2lnbmF0dXJl';
    expect(scrubLogText(`session ${jwt} expired`)).toBe('session [redacted token] expired');
    expect(scrubLogText('connect postgres://vane:hunter2@db.internal:5432/vane failed')).toBe(
      'connect postgres://vane:***@db.internal:5432/vane failed',
    );
    expect(scrubLogText('header Authorization: Bearer abc.def-ghi, then Basic dXNlcjpwdw==')).toBe(
      'header Authorization: Bearer [redacted], then Basic [redacted]',
    );
  });

  it('masks a known secret of any shape wherever it appears, but not a short one that would mask words', () => {
    expect(scrubLogText('token Xk9-q2LmN0pQr7 in a message: Xk9-q2LmN0pQr7', ['Xk9-q2LmN0pQr7'])).toBe(
      'token [redacted] in a message: [redacted]',
    );
    expect(scrubLogText('a short word', ['word'])).toBe('a short word');
  });

  it('leaves a line without credentials as it is', () => {
    const line = 'could not read the changes of other replicas: read ECONNRESET (revision 42, svs-like text)';
    expect(scrubLogText(line)).toBe(line);
  });
});

describe('redactUrlPassword', () => {
  it('replaces only the password of a URL, and prints what is not a URL as the placeholder given', () => {
    expect(redactUrlPassword('postgres://vane:s3cret@db:5432/vane?sslmode=require')).toBe(
      'postgres://vane:***@db:5432/vane?sslmode=require',
    );
    expect(redactUrlPassword('postgres://db/vane')).toBe('postgres://db/vane');
    expect(redactUrlPassword('not a url s3cret')).toBe('…');
    expect(redactUrlPassword('not a url s3cret', 'postgres://…')).toBe('postgres://…');
  });
});
