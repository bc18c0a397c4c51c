// The page's only way to the server: JSON over /console/api, with the session's
// CSRF token on every change. The admin token never reaches the page.

/** An answer the server refused, with its protocol error code and message. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** The server's own words when it refused a change; otherwise what went wrong. */
export function refusal(error) {
  if (error instanceof ApiError && error.status > 0) return `The server refused: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Path segments, each percent-encoded (keys may hold dots and dashes, never slashes). */
function path(segments) {
  return segments.map((segment) => encodeURIComponent(String(segment))).join('/');
}

export class ConsoleApi {
  /**
   * @param {string} csrfToken
   * @param {string[]} abOperators - the cohort condition operators the server knows
   */
  constructor(csrfToken, abOperators, actor = 'admin', rights = [], scoped = false) {
    this.csrfToken = csrfToken;
    this.abOperators = abOperators;
    /** The admin token's name, its rights and whether it sees only some projects or services. */
    this.actor = actor;
    this.rights = rights;
    this.scoped = scoped;
  }

  /** Logs in already happened (the cookie): fetches the CSRF token for this page, what its forms offer, and what the token may do. */
  static async open() {
    const session = await request('GET', '/console/api/session');
    return new ConsoleApi(session.csrf_token, session.ab_operators, session.actor, session.rights, session.scoped);
  }

  /** Whether the token holds `right` (the server checks again whatever the page sends). */
  can(right) {
    return this.rights.includes(right);
  }

  /** One page of the audit, newest first (`GET /admin/v1/audit`). @param {Record<string, string>} query */
  audit(query) {
    return request('GET', `/console/api/admin/v1/audit?${new URLSearchParams(query)}`);
  }

  overview() {
    return request('GET', '/console/api/overview');
  }

  /** @param {string} slug */
  service(slug) {
    return request('GET', `/console/api/services/${path([slug])}`);
  }

  /** One secret version's value, for display only: callers must not keep it. */
  reveal(slug, key, version) {
    return request(
      'POST',
      `/console/api/services/${path([slug, 'secrets', key, 'versions', version, 'reveal'])}`,
      undefined,
      this.csrfToken,
    ).then((answer) => answer.value);
  }

  /**
   * A change through the admin API (`/admin/v1/...`, PROTOCOL §10).
   * @param {'PUT' | 'PATCH' | 'DELETE' | 'POST'} method
   * @param {Array<string | number>} segments after `/admin/v1/`
   * @param {unknown} [body]
   */
  admin(method, segments, body) {
    return request(method, `/console/api/admin/v1/${path(segments)}`, body, this.csrfToken);
  }

  logout() {
    return fetch('/console/logout', {
      method: 'POST',
      headers: { 'x-csrf-token': this.csrfToken },
      credentials: 'same-origin',
    });
  }
}

async function request(method, url, body, csrfToken) {
  const headers = { accept: 'application/json' };
  if (csrfToken) headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let answer;
  try {
    answer = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'unreachable', 'The local server does not answer. Is it still running?');
  }
  const text = await answer.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (answer.status === 401 && url.startsWith('/console/api/') && json?.message === 'log in to the console first') {
    window.location.assign('/console/login');
  }
  if (!answer.ok) {
    throw new ApiError(answer.status, json?.error ?? 'http_error', json?.message ?? `HTTP ${answer.status}`);
  }
  return json;
}
