import { redactKey } from '@vane/common';

/**
 * Credential shapes a log message must never carry. Nobody logs them on
 * purpose; they could ride in on a foreign error's message (a driver's, a
 * proxy's), so every line is cleaned as a second line of defence.
 */
const CREDENTIAL_SHAPES: readonly (readonly [RegExp, (match: string, ...groups: string[]) => string])[] = [
  // Service keys (svs_, svp_) and scoped admin tokens (vat_): shown as a redacted key, which names which one.
  [/\b(?:sv[sp]|vat)_[A-Za-z0-9_.~+/=-]+/g, (key) => redactKey(key)],
  // Session tokens and other JWTs.
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g, () => '[redacted token]'],
  // The password of a URL (a PostgreSQL connection string).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, (_match, head) => `${head}[redacted]@`],
  // An Authorization header's credential.
  [/\b(Bearer|Basic)\s+[^\s,;"']+/gi, (_match, scheme) => `${scheme} [redacted]`],
];

/**
 * `text` with every credential it holds replaced: service keys and scoped
 * tokens redacted (`svs_…abcd`), JWTs, URL passwords and Authorization
 * credentials masked, and each of `known` (secrets this process holds
 * whatever their shape, such as the admin token) masked wherever it appears.
 */
export function scrubLogText(text: string, known: readonly string[] = []): string {
  let clean = text;
  for (const secret of known) {
    // A short value would mask ordinary words: only a credential-length one is looked for.
    if (secret.length >= 8) clean = clean.split(secret).join('[redacted]');
  }
  for (const [shape, replace] of CREDENTIAL_SHAPES) clean = clean.replace(shape, replace);
  return clean;
}
