import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describeJsonSyntaxError } from '../json/json-syntax-error.js';
import { ConfigError } from '../errors/config-error.js';

/**
 * Reads a config file (`--config FILE`): a JSON object (`.json`) or a YAML
 * mapping (any other name), whose keys are the settings' flag names without
 * the dashes (`port`, `trust-proxy`). Parse errors name the file and the
 * line, never the text around it (a config file may sit beside secrets).
 */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError('--config', `cannot read ${path} (${code})`, { cause: error });
  }
  let document: unknown;
  if (extname(path).toLowerCase() === '.json') {
    try {
      document = JSON.parse(text);
    } catch {
      throw new ConfigError(path, describeJsonSyntaxError(text, path));
    }
  } else {
    try {
      // linePos needs prettyErrors; the message itself (with its excerpt of the file) is never shown.
      document = parseYaml(text, { prettyErrors: true });
    } catch (error) {
      const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
      throw new ConfigError(path, `not valid YAML${line === undefined ? '' : ` (line ${line})`}`);
    }
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw new ConfigError(path, 'expected a mapping of settings (port: 4400, …)');
  }
  return document as Record<string, unknown>;
}
