/**
 * `vane-server rotate-root-key`: asks a running server to make a new root
 * key the one that wraps its data keys, while it serves and writes. The new
 * key and the admin token come from the environment or files, never argv.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ADMIN_OPERATION_CATALOG, adminOperationPath } from '@vane/common';

/** What `rotate-root-key --help` prints. */
export const ROTATE_ROOT_KEY_USAGE = `Usage: vane-server rotate-root-key [--url http://127.0.0.1:4400] [--new-root-key-file FILE] [--admin-token-file FILE]

  The new root key: $VANE_NEW_ROOT_KEY, or the first key of --new-root-key-file;
  with neither, the server reads its own root key file again and takes its first key
  (put the new key first in that file, keep the old one below it until this succeeds).
  The admin token: $VANE_ADMIN_TOKEN, or --admin-token-file.
  Exit code 0: rotated (the old key is no longer needed once every replica has the new one);
  1: refused or failed; 2: usage.`;

/** Runs `rotate-root-key`; resolves with the exit code. */
export async function rotateRootKey(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let values: { url?: string; 'new-root-key-file'?: string; 'admin-token-file'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' },
        'new-root-key-file': { type: 'string' },
        'admin-token-file': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    err(`${(error as Error).message}\n\n${ROTATE_ROOT_KEY_USAGE}`);
    return 2;
  }
  if (values.help) {
    out(ROTATE_ROOT_KEY_USAGE);
    return 0;
  }
  let token: string | undefined;
  let newKey: string | undefined;
  try {
    token = values['admin-token-file']
      ? readFileSync(values['admin-token-file'], 'utf8').trim()
      : env['VANE_ADMIN_TOKEN'];
    newKey = values['new-root-key-file']
      ? readFileSync(values['new-root-key-file'], 'utf8')
      : env['VANE_NEW_ROOT_KEY'] || undefined;
  } catch (error) {
    err(`vane-server rotate-root-key: ${(error as Error).message}`);
    return 2;
  }
  if (!token) {
    err(`the admin token is needed: set VANE_ADMIN_TOKEN or --admin-token-file\n\n${ROTATE_ROOT_KEY_USAGE}`);
    return 2;
  }
  const url = `${(values.url ?? 'http://127.0.0.1:4400').replace(/\/+$/, '')}${adminOperationPath('rotateRootKey', {})}`;
  let answer: Response;
  try {
    answer = await fetch(url, {
      method: ADMIN_OPERATION_CATALOG.rotateRootKey.method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(newKey === undefined ? {} : { root_key: newKey }),
    });
  } catch (error) {
    err(`vane-server rotate-root-key: cannot reach ${url}: ${(error as Error).message}`);
    return 1;
  }
  const body = (await answer.json().catch(() => ({}))) as { root_key?: string; rewrapped?: number; message?: string };
  if (!answer.ok) {
    err(`vane-server rotate-root-key: ${answer.status} ${body.message ?? ''}`.trim());
    return 1;
  }
  out(`root key is now ${body.root_key ?? '?'}: ${body.rewrapped ?? 0} data key(s) wrapped again, state rewritten`);
  return 0;
}
