import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { PROCESS_TEST_MS } from '@vane/test-harness';

const ROOT = resolve(__dirname, '..');

/**
 * Starts the built package (`dist/`) in a child Node, fetches the console's
 * login page and one of its modules, and prints what came back.
 */
const probe = `
  const server = await startVaneServer();
  const page = await fetch(server.url + '/console/login');
  const app = await fetch(server.url + '/console/assets/app.js');
  console.log(JSON.stringify({ page: page.status, app: app.status, type: app.headers.get('content-type') }));
  await server.close();
`;

describe('the web console, as the package ships it', () => {
  it.each([
    ['ESM (import)', ['--input-type=module', '-e', `import { startVaneServer } from '@vane/server';${probe}`]],
    ['CommonJS (require)', ['-e', `const { startVaneServer } = require('@vane/server'); (async () => {${probe}})();`]],
  ])(
    'serves its pages and modules from dist through %s',
    async (_name, args) => {
      const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, timeout: 20_000 });
      expect(JSON.parse(stdout)).toEqual({ page: 200, app: 200, type: 'text/javascript; charset=utf-8' });
    },
    PROCESS_TEST_MS,
  );
});
