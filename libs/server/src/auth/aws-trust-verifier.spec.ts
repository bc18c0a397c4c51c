import { arnFromStsAnswer, decodeSignedRequest, principalOf } from './aws-trust-verifier.js';

describe('principalOf', () => {
  it('maps an assumed-role ARN to its role, and keeps IAM roles and users', () => {
    expect(principalOf('arn:aws:sts::123456789012:assumed-role/shop-api/i-0abc')).toBe(
      'aws:123456789012:role/shop-api',
    );
    expect(principalOf('arn:aws:iam::123456789012:role/shop-api')).toBe('aws:123456789012:role/shop-api');
    expect(principalOf('arn:aws:iam::123456789012:role/team/service/shop-api')).toBe('aws:123456789012:role/shop-api');
    expect(principalOf('arn:aws:iam::123456789012:user/deploy')).toBe('aws:123456789012:user/deploy');
    expect(principalOf('arn:aws-cn:sts::123456789012:assumed-role/r/s')).toBe('aws-cn:123456789012:role/r');
  });
  it('is undefined for anything else', () => {
    expect(principalOf('arn:aws:s3:::bucket')).toBeUndefined();
    expect(principalOf('shop-api')).toBeUndefined();
  });
});

describe('arnFromStsAnswer', () => {
  it('reads the XML and the JSON form', () => {
    expect(
      arnFromStsAnswer(
        '<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:iam::1:user/u</Arn></GetCallerIdentityResult></GetCallerIdentityResponse>',
      ),
    ).toBe('arn:aws:iam::1:user/u');
    expect(
      arnFromStsAnswer(JSON.stringify({ GetCallerIdentityResponse: { GetCallerIdentityResult: { Arn: 'a' } } })),
    ).toBe('a');
    expect(arnFromStsAnswer('nonsense')).toBeUndefined();
  });
});

describe('decodeSignedRequest', () => {
  const encode = (doc: unknown): string => Buffer.from(JSON.stringify(doc)).toString('base64');
  it('decodes base64 JSON and lower-cases header names', () => {
    expect(
      decodeSignedRequest(
        encode({ method: 'POST', url: 'https://sts.amazonaws.com/', headers: { Authorization: 'x' }, body: 'b' }),
      ),
    ).toEqual({
      method: 'POST',
      url: 'https://sts.amazonaws.com/',
      headers: { authorization: 'x' },
      body: 'b',
    });
  });
  it.each([
    ['not base64 JSON', '%%%'],
    ['an array', encode([])],
    ['a missing body', encode({ method: 'POST', url: 'u', headers: {} })],
    ['a non-string header', encode({ method: 'POST', url: 'u', headers: { a: 1 }, body: '' })],
  ])('refuses %s', (_name, token) => {
    expect(decodeSignedRequest(token)).toHaveProperty('refused');
  });
});
