import { redactKey } from '@vane/common';

/** What stands for a URL's password wherever one is printed. */
const URL_PASSWORD_MASK = '***';

/**
 * `url` as it may be printed: its password, if any, replaced by `***`.
 * Text that is not a URL prints as `unparsable`, since it could be
 * anything, a password included.
 */
export function redactUrlPassword(url: string, unparsable = '…'): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = URL_PASSWORD_MASK;
    return parsed.toString();
  } catch {
    return unparsable;
  }
}

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
  // The password of a URL (a PostgreSQL connection string), written as redactUrlPassword writes it.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, (_match, head) => `${head}${URL_PASSWORD_MASK}@`],
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
