import { VaneServerError, type VaneServerErrorOptions } from './vane-server-error.js';

/**
 * A setting of the command line, the environment or the config file that
 * cannot be used. `setting` names it as the user wrote it (`--port`,
 * `VANE_PORT`, `vane.yaml: port`); the message never quotes a secret.
 * Match on {@link ConfigError.code}.
 */
export class ConfigError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_CONFIG_INVALID' as const;
  /** The setting at fault, as its source names it. */
  readonly setting: string;
  /** What is wrong with it. */
  readonly problem: string;

  /**
   * @param setting - the setting at fault, as its source names it.
   * @param problem - what is wrong; never a secret value.
   */
  constructor(setting: string, problem: string, options?: VaneServerErrorOptions) {
    super(`${setting}: ${problem}`, options);
    this.setting = setting;
    this.problem = problem;
  }
}
