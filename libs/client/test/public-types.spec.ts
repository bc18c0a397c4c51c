import * as api from '../src/index.js';
import * as adapter from '../src/adapter/index.js';
import * as errors from '../src/errors.js';
import type {
  ChangeEvent,
  ConfigValue,
  SnapshotUpdate,
  StateUpdate,
  VaneClient,
  VaneSnapshot,
  VaneView,
} from '../src/index.js';
import type { SnapshotOrigin, SnapshotReader, StateReader, UpdateOrigin } from '../src/adapter/index.js';

/** Type-level checks: compiled by `tsc -p tsconfig.json`, never called. */
export function typeChecks(client: VaneClient): void {
  const n: number = client.config('db.pool.max', 10);
  const s: string = client.config('db.host', 'localhost');
  const b: boolean = client.config('maintenance.enabled', false);
  const a: readonly string[] = client.config<readonly string[]>('cors.origins', []);
  const maybe: ConfigValue | undefined = client.config('anything');
  const lookup = client.configLookup('x');
  if (lookup.found) {
    const v: ConfigValue = lookup.value;
    void v;
  }
  const flag: boolean = client.flag('f');
  // @ts-expect-error a secret can be null
  const secret: string = client.secret('s');
  const strict: string = client.requireSecret('s');
  client.onChange((e: ChangeEvent) => {
    if (e.kind === 'secret') {
      // @ts-expect-error secret events carry no value
      void e.newValue?.value;
      const version: number | undefined = e.newValue?.version;
      void version;
    }
    if (e.kind === 'flag') {
      const active: boolean | undefined = e.newValue;
      void active;
    }
  });
  void [n, s, b, a, maybe, flag, secret, strict];
}

/** The deprecated snapshot names are the new names' types, both ways. Never called. */
export function deprecatedNameChecks(
  view: VaneView,
  update: StateUpdate,
  origin: UpdateOrigin,
  reader: StateReader,
): void {
  const oldView: VaneSnapshot = view;
  const newView: VaneView = oldView;
  const oldUpdate: SnapshotUpdate = update;
  const newUpdate: StateUpdate = oldUpdate;
  const oldOrigin: SnapshotOrigin = origin;
  const newOrigin: UpdateOrigin = oldOrigin;
  const oldReader: SnapshotReader = reader;
  const newReader: StateReader = oldReader;
  void [newView, newUpdate, newOrigin, newReader];
}

/** A live resource's `create` sees the keys it names, typed; others are compile errors. Never called. */
export async function liveResourceTypeChecks(client: VaneClient): Promise<void> {
  const pool = await client.liveResource({
    configs: ['db.host'],
    secrets: ['db.password'],
    secretFiles: ['db.ca'],
    create: ({ configs, secrets, secretFiles }) => {
      const host: ConfigValue | undefined = configs['db.host'];
      const password: string = secrets['db.password'];
      const ca: string = secretFiles['db.ca'];
      // @ts-expect-error a key the definition does not name
      void secrets['other.secret'];
      return { host, password, ca, end: async (): Promise<void> => undefined };
    },
    dispose: (p) => p.end(),
  });
  const current: { password: string } = pool.current;
  const rows: number = await pool.use(async (p) => p.password.length);
  void [current, rows];
}

describe('public door', () => {
  it('exports what an app author writes: the client, its stores and resources, the check, the base error, the browser bootstrap', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'ApiKeyCredentials',
        'FileBackupStore',
        'LiveResource',
        'RedisBackupStore',
        'VaneClient',
        'VaneError',
        'WorkloadIdentityCredentials',
        'checkConnectivity',
        'createBrowserBootstrap',
        'defineSchema',
        'keepSecureContextCurrent',
        'sweepStaleSecretDirs',
        'tlsCertificate',
      ].sort(),
    );
  });

  it('keeps the plumbing off the main entry: adapters and error classes have entries of their own', () => {
    expect(Object.keys(adapter)).toEqual(
      expect.arrayContaining(['AdapterRequestReader', 'callView', 'whenResponseEnds']),
    );
    expect(Object.keys(errors)).toEqual(expect.arrayContaining(['VaneError', 'SecretNotFoundError', 'TransportError']));
    for (const name of Object.keys(adapter)) expect(api).not.toHaveProperty(name);
  });
});
