/**
 * Finds where JSON.parse gave up, as `line L, column C` (1-based), and what
 * it expected there. JSON.parse's own message is not used: V8 quotes the
 * text around the error, which could be a secret.
 */
export function describeJsonSyntaxError(text: string, subject = 'the file'): string {
  if (/^[ \t\n\r]*$/.test(text)) return `invalid JSON: ${subject} is empty`;
  const error = findJsonSyntaxError(text, subject);
  if (error === undefined) return 'invalid JSON';
  const before = text.slice(0, error.offset);
  const line = before.split('\n').length;
  const column = error.offset - before.lastIndexOf('\n');
  return `invalid JSON at line ${line}, column ${column}: ${error.problem}`;
}

function describeChar(text: string, offset: number, subject: string): string {
  if (offset >= text.length) return `the end of ${subject}`;
  const code = text.codePointAt(offset)!;
  return code > 0x20 && code < 0x7f
    ? JSON.stringify(String.fromCodePoint(code))
    : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Scans `text` as JSON without recursion; returns the first error, or undefined when it is valid. */
function findJsonSyntaxError(text: string, subject: string): { offset: number; problem: string } | undefined {
  let i = 0;
  const stack: Array<'object' | 'array'> = [];
  const skipSpace = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const expected = (what: string): { offset: number; problem: string } => ({
    offset: i,
    problem: `expected ${what}, found ${describeChar(text, i, subject)}`,
  });
  const scanString = (): { offset: number; problem: string } | undefined => {
    const start = i;
    i++;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return { offset: i, problem: 'unescaped control character in a string' };
      if (c === 0x5c) {
        const escape = text[i + 1];
        if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
          i += 2;
        } else if (escape === 'u' && /^[0-9A-Fa-f]{4}$/.test(text.slice(i + 2, i + 6))) {
          i += 6;
        } else {
          return { offset: i, problem: 'invalid escape sequence in a string' };
        }
      } else {
        i++;
      }
    }
    return { offset: start, problem: 'unterminated string' };
  };
  const scanMemberName = (): { offset: number; problem: string } | undefined => {
    skipSpace();
    if (text[i] !== '"') return expected('a member name in double quotes');
    const error = scanString();
    if (error !== undefined) return error;
    skipSpace();
    if (text[i] !== ':') return expected('":"');
    i++;
    return undefined;
  };

  skipSpace();
  for (;;) {
    // Here a value must start.
    skipSpace();
    const c = text[i];
    let opened = false;
    if (c === '{' || c === '[') {
      i++;
      skipSpace();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
      } else {
        stack.push(c === '{' ? 'object' : 'array');
        opened = true;
        if (c === '{') {
          const error = scanMemberName();
          if (error !== undefined) return error;
        }
      }
    } else if (c === '"') {
      const error = scanString();
      if (error !== undefined) return error;
    } else if (c !== undefined && /[-0-9]/.test(c)) {
      const number = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 1024));
      if (number === null || number[0] === '-') return expected('a number');
      i += number[0].length;
    } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
      i += 4;
    } else if (text.startsWith('false', i)) {
      i += 5;
    } else {
      return expected('a value');
    }
    if (opened) continue;
    // A value ended: close containers until a separator asks for the next value.
    for (;;) {
      skipSpace();
      const top = stack[stack.length - 1];
      if (top === undefined) {
        return i < text.length ? expected(`the end of ${subject} after the JSON value`) : undefined;
      }
      if (text[i] === ',') {
        i++;
        if (top === 'object') {
          const error = scanMemberName();
          if (error !== undefined) return error;
        }
        break;
      }
      if (text[i] === (top === 'object' ? '}' : ']')) {
        stack.pop();
        i++;
        continue;
      }
      return expected(top === 'object' ? '"," or "}"' : '"," or "]"');
    }
  }
}
