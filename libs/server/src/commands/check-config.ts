import { kebabName } from '../config/option-spec.js';
import { loadServerConfig } from '../config/load-server-config.js';
import { SERVER_OPTIONS } from '../config/server-options.js';
import { describeStoreSetting, parseStoreSetting } from '../server/store-setting.js';
import { readServerDataFile } from '../seed/seed-parser.js';
import type { CliCommand, CommandContext } from './cli-command.js';

/**
 * `vane-server check-config`: reads every setting as `serve` would, and the
 * seed file, then prints each setting with where it came from. A wrong one
 * exits 2 naming it; secrets print as `(set)`.
 */
export const checkConfigCommand: CliCommand = {
  name: 'check-config',
  usage: 'check-config [options]',
  summary: 'check the settings (and the seed file) without starting; name the wrong one',
  async run(context: CommandContext): Promise<number> {
    const { values, sources, file } = loadServerConfig(context);
    // A seed that would stop the start is a wrong setting too; SeedError names the file and JSON path.
    if (values.seed !== undefined) readServerDataFile(values.seed, { now: new Date() });
    const entries = values as Readonly<Record<string, unknown>>;
    for (const name of Object.keys(SERVER_OPTIONS)) {
      const value = entries[name];
      const spec = SERVER_OPTIONS[name as keyof typeof SERVER_OPTIONS];
      let shown: string;
      if (spec.kind === 'secret') shown = value === undefined ? '(not set)' : '(set)';
      else if (name === 'store') {
        const store = parseStoreSetting(value as string);
        shown = typeof store === 'string' ? '(invalid)' : describeStoreSetting(store);
      } else shown = value === undefined ? '(none)' : Array.isArray(value) ? value.join(',') : String(value);
      context.out(`${kebabName(name)} = ${shown}  (${sources[name as keyof typeof SERVER_OPTIONS].name})`);
    }
    context.out(`configuration OK${file === undefined ? '' : ` (config file ${file})`}`);
    return 0;
  },
};
