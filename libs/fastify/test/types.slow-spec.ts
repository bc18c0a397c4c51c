import { join, resolve } from 'node:path';
import ts from 'typescript';

// Compiles small consumer files (a TypeScript program takes seconds to build, hence the 30 s limits) the way
// a user's project would, to prove that importing @vane/fastify is what types app.vane, request.vane and
// the route option config.vane, on Fastify 4's types and on Fastify 5's.
const ROOT = resolve(__dirname, '../../..');

function diagnostics(fastifyTypes: string, files: Record<string, string>): string[] {
  const dir = join(ROOT, 'libs/fastify/test/__virtual__');
  const names = Object.keys(files).map((f) => join(dir, f));
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    baseUrl: ROOT,
    paths: {
      '@vane/client': ['libs/client/src/index.ts'],
      '@vane/fastify': ['libs/fastify/src/index.ts'],
      fastify: [fastifyTypes],
    },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => files[name.slice(dir.length + 1)] ?? readFile(name);
  host.fileExists = (name) => (name.startsWith(dir + '/') ? name.slice(dir.length + 1) in files : fileExists(name));
  const program = ts.createProgram(names, options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && d.file.fileName.startsWith(dir))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const APP = `
  import Fastify, { type FastifyError } from 'fastify';
  import vane from '@vane/fastify';

  export async function own() {
    const app = Fastify();
    await app.register(vane, { baseUrl: 'http://shop.localhost:4400', apiKey: 'svs_x', errorHandler: false });
    const vaneErrors = app.vane.errorHandler();
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error.code?.startsWith('VANE_')) return vaneErrors(error, request, reply);
      void reply.code(error.statusCode ?? 500).send({ oops: true });
    });
  }

  export async function build() {
    const app = Fastify();
    await app.register(vane, {
      baseUrl: 'http://shop.localhost:4400',
      apiKey: 'svs_x',
      abContext: (request) => ({ userId: String(request.headers['x-user-id']) }),
    });
    app.get('/checkout', { config: { vane: { flags: 'new-checkout' } } }, async (request) => {
      const poolMax: number = request.vane.config('db.pool.max', 10);
      const on: boolean = request.vane.flag('new-checkout');
      const secret: string | null = request.vane.secret('stripe.api_key');
      const ab: boolean = await request.vane.ab('new-pricing');
      return { poolMax, on, secret, ab };
    });
    app.get<{ Params: { id: string } }>(
      '/orders/:id',
      { preHandler: app.vane.requireFlag('new-checkout'), onRequest: [app.vane.requireFlag(['a', 'b'], { ab: true })] },
      async (request) => ({ id: request.params.id }),
    );
    app.get('/list', { config: { vane: [{ flags: 'a' }, { flags: ['b'], ab: true, status: 403 }] } }, async () => ({}));
    app.addHook('preHandler', app.vane.requireFlag('scope-flag'));
    app.setErrorHandler(app.vane.errorHandler({ statuses: { VANE_SECRET_NOT_FOUND: 404 } }));
    // @ts-expect-error flags are strings
    app.get('/bad', { config: { vane: { flags: 1 } } }, async () => ({}));
    // @ts-expect-error request.vane has no setter API
    app.get('/set', async (request) => request.vane.setConfig('x', 1));
    // @ts-expect-error a config read with a number default is a number, not a string
    app.get('/num', async (request) => { const wrong: string = request.vane.config('db.pool.max', 10); return wrong; });
    await app.register(vane, { client: app.vane.client, closeClient: false });
    return app;
  }
`;

describe('the Fastify type augmentation', () => {
  it.each([
    ['Fastify 5', 'node_modules/fastify/fastify.d.ts'],
    ['Fastify 4', 'node_modules/fastify4/fastify.d.ts'],
  ])(
    'types app.vane, request.vane and config.vane on %s once @vane/fastify is imported, and rejects misuse',
    (_name, types) => {
      expect(diagnostics(types, { 'app.ts': APP })).toEqual([]);
    },
    30_000,
  );

  it('is absent without the import: request.vane is unknown to TypeScript', () => {
    const errors = diagnostics('node_modules/fastify/fastify.d.ts', {
      'plain.ts': `
        import Fastify from 'fastify';
        const app = Fastify();
        app.get('/x', async (request) => request.vane.flag('x'));
      `,
    });
    expect(errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/Property 'vane' does not exist on type 'FastifyRequest/)]),
    );
  }, 30_000);
});
