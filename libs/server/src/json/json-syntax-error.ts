/**
 * Finds where JSON.parse gave up, as `line L, column C` (1-based), and what
 * it expected there. JSON.parse's own message is not used: V8 quotes the
 * text around the error, which could be a secret.
 */
export function describeJsonSyntaxError(text: string, subject = 'the file'): string {
  if (/^[ \t\n\r]*$/.test(text)) return `invalid JSON: ${subject} is empty`;
  const error = new JsonScanner(text, subject).firstError();
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

/** Where JSON text goes wrong, and how. */
interface JsonSyntaxProblem {
  readonly offset: number;
  readonly problem: string;
}

/** Scans text as JSON without recursion: the containers open are kept on a stack. */
class JsonScanner {
  #at = 0;
  readonly #stack: Array<'object' | 'array'> = [];

  constructor(
    private readonly text: string,
    private readonly subject: string,
  ) {}

  /** The first error of the text, or undefined when it is valid. */
  firstError(): JsonSyntaxProblem | undefined {
    this.#skipSpace();
    for (;;) {
      // Here a value must start.
      const value = this.#scanValue();
      if (typeof value === 'object') return value;
      if (value === 'opened') continue;
      const next = this.#closeContainers();
      if (next !== 'next') return next;
    }
  }

  /** Scans one value, or the start of a container with something in it (`opened`). */
  #scanValue(): 'opened' | 'scanned' | JsonSyntaxProblem {
    const { text } = this;
    this.#skipSpace();
    const c = text[this.#at];
    if (c === '{' || c === '[') {
      this.#at++;
      this.#skipSpace();
      if (text[this.#at] === (c === '{' ? '}' : ']')) {
        this.#at++;
        return 'scanned';
      }
      this.#stack.push(c === '{' ? 'object' : 'array');
      return (c === '{' ? this.#scanMemberName() : undefined) ?? 'opened';
    }
    if (c === '"') return this.#scanString() ?? 'scanned';
    if (c !== undefined && /[-0-9]/.test(c)) {
      const number = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(this.#at, this.#at + 1024));
      if (number === null || number[0] === '-') return this.#expected('a number');
      this.#at += number[0].length;
    } else if (text.startsWith('true', this.#at) || text.startsWith('null', this.#at)) {
      this.#at += 4;
    } else if (text.startsWith('false', this.#at)) {
      this.#at += 5;
    } else {
      return this.#expected('a value');
    }
    return 'scanned';
  }

  /** A value ended: closes containers until a separator asks for the next value (`next`) or the text ends. */
  #closeContainers(): 'next' | JsonSyntaxProblem | undefined {
    const { text } = this;
    for (;;) {
      this.#skipSpace();
      const top = this.#stack[this.#stack.length - 1];
      if (top === undefined) {
        return this.#at < text.length ? this.#expected(`the end of ${this.subject} after the JSON value`) : undefined;
      }
      if (text[this.#at] === ',') {
        this.#at++;
        return (top === 'object' ? this.#scanMemberName() : undefined) ?? 'next';
      }
      if (text[this.#at] === (top === 'object' ? '}' : ']')) {
        this.#stack.pop();
        this.#at++;
        continue;
      }
      return this.#expected(top === 'object' ? '"," or "}"' : '"," or "]"');
    }
  }

  #skipSpace(): void {
    const { text } = this;
    while (this.#at < text.length && ' \t\n\r'.includes(text[this.#at]!)) this.#at++;
  }

  #expected(what: string): JsonSyntaxProblem {
    return {
      offset: this.#at,
      problem: `expected ${what}, found ${describeChar(this.text, this.#at, this.subject)}`,
    };
  }

  #scanString(): JsonSyntaxProblem | undefined {
    const { text } = this;
    const start = this.#at;
    this.#at++;
    while (this.#at < text.length) {
      const c = text.charCodeAt(this.#at);
      if (c === 0x22) {
        this.#at++;
        return undefined;
      }
      if (c < 0x20)
        return {
          offset: this.#at,
          problem: 'unescaped control character in a string',
        };
      if (c === 0x5c) {
        const escape = text[this.#at + 1];
        if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
          this.#at += 2;
        } else if (escape === 'u' && /^[0-9A-Fa-f]{4}$/.test(text.slice(this.#at + 2, this.#at + 6))) {
          this.#at += 6;
        } else {
          return {
            offset: this.#at,
            problem: 'invalid escape sequence in a string',
          };
        }
      } else {
        this.#at++;
      }
    }
    return { offset: start, problem: 'unterminated string' };
  }

  #scanMemberName(): JsonSyntaxProblem | undefined {
    this.#skipSpace();
    if (this.text[this.#at] !== '"') return this.#expected('a member name in double quotes');
    const error = this.#scanString();
    if (error !== undefined) return error;
    this.#skipSpace();
    if (this.text[this.#at] !== ':') return this.#expected('":"');
    this.#at++;
    return undefined;
  }
}
