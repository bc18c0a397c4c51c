import { AUDIT_VERIFY_USAGE, auditVerify } from './audit-verify.js';
import type { CliCommand } from './cli-command.js';
import { ROTATE_ROOT_KEY_USAGE, rotateRootKey } from './rotate-root-key.js';

/** `vane-server rotate-root-key`: a running server re-wraps its data keys with a new root key. */
export const rotateRootKeyCommand: CliCommand = {
  name: 'rotate-root-key',
  usage: 'rotate-root-key [--url URL] [--new-root-key-file FILE] [--admin-token-file FILE]',
  summary: 'make a new root key wrap the data keys of a running server, online (see rotate-root-key --help)',
  help: ROTATE_ROOT_KEY_USAGE,
  run: (context) => rotateRootKey([...context.argv], context.env, context.out, context.err),
};

/** `vane-server audit verify`: checks the audit's hash chain in a store. */
export const auditCommand: CliCommand = {
  name: 'audit',
  usage: 'audit verify --state FILE | --store STORE',
  summary: 'report the first audit entry edited, removed or reordered (see audit verify --help)',
  help: AUDIT_VERIFY_USAGE,
  async run(context) {
    if (context.argv[0] !== 'verify') {
      context.err(`${context.program} audit: the only audit command is "verify"`);
      return 2;
    }
    return await auditVerify([...context.argv.slice(1)], context.out, context.err, context.env);
  },
};
