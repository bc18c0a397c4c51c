import { ManualClock, startVaneServer, type VaneServer } from '../src/index.js';
import { call, type Answer } from './support/http-client.js';
import { testSeed } from '../src/testing/index.js';

const TOKEN = 'admin-token-for-throttle-tests';

/** Wrong admin tokens, from one address (127.0.0.1), meet a growing wait; the right one is checked once it is over. */
describe('failed-attempt throttle of the admin token (admin API and console login)', () => {
  let server: VaneServer;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.parse('2026-11-24T10:00:00Z'));
    server = await startVaneServer({ seed: testSeed(), adminToken: TOKEN, clock });
  });
  afterEach(() => server.close());

  const adminCall = (token: string | false): Promise<Answer> =>
    call(server, { method: 'GET', path: '/admin/v1/services', admin: token });

  const postLogin = (token: string, accept = 'text/html,application/xhtml+xml'): Promise<Answer> =>
    call(server, {
      method: 'POST',
      path: '/console/login',
      body: new URLSearchParams({ token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', accept },
    });

  function expectThrottled(answer: Answer, seconds: number): void {
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe(String(seconds));
    expect(answer.json()).toEqual({
      error: 'rate_limited',
      message: `too many wrong admin tokens from this address: the next one is checked in ${seconds} s`,
    });
  }

  it('answers 401 to five wrong bearer tokens, then 429 with Retry-After, even to the right one, until the wait is over', async () => {
    for (let i = 0; i < 6; i++) expect((await adminCall(`wrong-${i}`)).status).toBe(401);
    expectThrottled(await adminCall(TOKEN), 1);
    expectThrottled(await adminCall('wrong-again'), 1); // not counted: the wait stays 1 s
    clock.advance(1000);
    expect((await adminCall(TOKEN)).status).toBe(200);
  });

  it('makes each further wrong token wait twice as long, never more than a minute, and never keeps the right token out', async () => {
    for (let i = 0; i < 6; i++) await adminCall(`wrong-${i}`);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const refused = await adminCall('still-wrong');
      const seconds = Number(refused.headers['retry-after']);
      waits.push(seconds);
      clock.advance(seconds * 1000);
      expect((await adminCall(`wrong-after-wait-${i}`)).status).toBe(401); // checked, and wrong
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
    clock.advance(60_000);
    expect((await adminCall(TOKEN)).status).toBe(200);
  });

  it('does not count a request without any token, and never leaks the guess', async () => {
    for (let i = 0; i < 20; i++) expect((await adminCall(false)).status).toBe(401);
    expect((await adminCall(TOKEN)).status).toBe(200);
    for (let i = 0; i < 6; i++) await adminCall('svs_guess_that_must_not_echo');
    const refused = await adminCall('svs_guess_that_must_not_echo');
    expect(refused.status).toBe(429);
    expect(refused.text).not.toContain('svs_guess');
  });

  it('shares one count between the login form and the admin API, and answers a browser with the login page', async () => {
    for (let i = 0; i < 3; i++) expect((await adminCall(`wrong-${i}`)).status).toBe(401);
    for (let i = 0; i < 3; i++) {
      const wrong = await postLogin(`wrong-login-${i}`);
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('That is not the admin token. Try again.');
    }
    const page = await postLogin(TOKEN);
    expect(page.status).toBe(429);
    expect(page.headers['retry-after']).toBe('1');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.text).toContain(
      '<p class="alert" role="alert" id="login-error">Too many wrong tokens from your address. The next one is checked in 1 s.</p>',
    );
    expectThrottled(await postLogin(TOKEN, 'application/json'), 1);

    clock.advance(1000);
    const welcome = await postLogin(TOKEN);
    expect([welcome.status, welcome.headers['location']]).toEqual([303, '/console/']);
    expect(String(welcome.headers['set-cookie'])).toMatch(/^vane_console=/);
  });

  it('leaves a logged-in console working while its address waits', async () => {
    const login = await postLogin(TOKEN);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const csrf = (await call(server, { path: '/console/api/session', headers: { cookie } })).json<{
      csrf_token: string;
    }>().csrf_token;
    for (let i = 0; i < 6; i++) await adminCall(`wrong-${i}`);
    expect((await adminCall(TOKEN)).status).toBe(429);
    const change = await call(server, {
      method: 'PATCH',
      path: '/console/api/admin/v1/services/shop/flags/beta',
      body: { is_enabled: true },
      headers: { cookie, 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' },
    });
    expect([change.status, change.json()]).toEqual([200, { revision: 2 }]);
  });

  it('forgets an address after ten minutes without a wrong token', async () => {
    for (let i = 0; i < 6; i++) await adminCall(`wrong-${i}`);
    clock.advance(600_000);
    for (let i = 0; i < 5; i++) expect((await adminCall(`wrong-later-${i}`)).status).toBe(401);
    expect((await adminCall(TOKEN)).status).toBe(200); // five free guesses again: no wait yet
  });

  it('takes its settings from authThrottle, or is off with authThrottle: false', async () => {
    await server.close();
    server = await startVaneServer({ adminToken: TOKEN, clock, authThrottle: { freeFailures: 0, baseDelayMs: 5000 } });
    expect((await adminCall('wrong')).status).toBe(401);
    expectThrottled(await adminCall(TOKEN), 5);

    await server.close();
    server = await startVaneServer({ adminToken: TOKEN, clock, authThrottle: false });
    for (let i = 0; i < 50; i++) expect((await adminCall(`wrong-${i}`)).status).toBe(401);
    expect((await adminCall(TOKEN)).status).toBe(200);

    await server.close();
    await expect(startVaneServer({ adminToken: TOKEN, authThrottle: { maxDelayMs: 10 } })).rejects.toThrow(
      'maxDelayMs must be a number of milliseconds of at least baseDelayMs',
    );
    server = await startVaneServer({ adminToken: TOKEN, clock }); // for afterEach
  });
});
