import { join, resolve } from 'node:path';
import ts from 'typescript';

// Compiles small consumer files (a TypeScript program takes seconds to build, hence the 30 s limits) the way a user's project would, to prove that importing
// @vane/express is what gives `req.vane` its type, on Express 4's and Express 5's types.
const ROOT = resolve(__dirname, '../../..');

function diagnostics(files: Record<string, string>): string[] {
  const dir = join(ROOT, 'libs/express/test/__virtual__');
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
    paths: { '@vane/client': ['libs/client/src/index.ts'], '@vane/express': ['libs/express/src/index.ts'] },
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

const USE = `
  const poolMax: number = req.vane.config('db.pool.max', 10);
  const host: string | undefined = req.vane.config<string>('db.host');
  const on: boolean = req.vane.flag('new-checkout');
  const secret: string | null = req.vane.secret('stripe.api_key');
  const ab: Promise<boolean> = req.vane.ab('new-pricing');
  void [poolMax, host, on, secret, ab];
`;

describe('the Request type augmentation', () => {
  it.each([
    ['Express 5', 'express'],
    ['Express 4', 'express4'],
  ])(
    'types req.vane on %s once @vane/express is imported, and rejects misuse',
    (_name, module) => {
      const errors = diagnostics({
        'app.ts': `
        import type { Request } from '${module}';
        import { createVane } from '@vane/express';
        void createVane;
        export function handler(req: Request): void {${USE}
          // @ts-expect-error a config read with a number default is a number, not a string
          const wrong: string = req.vane.config('db.pool.max', 10);
          // @ts-expect-error req.vane has no setter API
          req.vane.setConfig('x', 1);
          void wrong;
        }
      `,
      });
      expect(errors).toEqual([]);
    },
    30_000,
  );

  it('is absent without the import: req.vane is unknown to TypeScript', () => {
    const errors = diagnostics({
      'plain.ts': `
        import type { Request } from 'express';
        export function handler(req: Request): void {${USE}}
      `,
    });
    expect(errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/Property 'vane' does not exist on type 'Request/)]),
    );
  }, 30_000);
});
