import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { ivKeyOf, openBytes, sealBytes } from './aead.js';

/** The construction as first written (an Hmac object, then the cipher): stored data was sealed this way. */
function referenceSeal(key: Buffer, plaintext: Buffer, aad: string): string {
  const ivKey = createHmac('sha256', key).update('vane synthetic iv').digest();
  const iv = createHmac('sha256', ivKey).update(aad).update('\u0000').update(plaintext).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

describe('sealBytes', () => {
  it.each([
    ['an empty value', ''],
    ['a short value', 'canary'],
    ['a value longer than a hash block, not ASCII', `${'x'.repeat(100)}-é-${'y'.repeat(70)}`],
  ])('gives the same bytes as the reference construction for %s, and opens', (_name, text) => {
    const key = randomBytes(32);
    const aad = 'vane/secret\u0000shop\u0000db.password\u00003\u0000dk1';
    const plaintext = Buffer.from(text, 'utf8');
    const sealed = sealBytes(key, plaintext, aad, ivKeyOf(key));
    expect(sealed).toBe(referenceSeal(key, plaintext, aad));
    expect(openBytes(key, sealed, aad)?.toString('utf8')).toBe(text);
    expect(openBytes(key, sealed, `${aad}x`)).toBeUndefined();
  });
});
