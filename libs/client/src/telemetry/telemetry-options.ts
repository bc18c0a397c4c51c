/**
 * The `telemetry` option: on by default (it records only when the app has
 * registered an OpenTelemetry SDK), `false` turns it off.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';

/** The object form of the `telemetry` option. */
export interface VaneTelemetryOptions {
  /**
   * Record Vane's metrics, spans and `feature_flag.evaluation` events
   * through OpenTelemetry. `false` turns all of it off.
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * Put the user id of a flag evaluation (an A/B evaluation's `userId`, an
   * OpenFeature `targetingKey`) in the event's `feature_flag.context.id`.
   * A user id can be personal data: it is left out unless set.
   * @default false
   */
  readonly recordUserId?: boolean;
}

/** The `telemetry` option after defaults. Internal. */
export interface ResolvedTelemetryOptions {
  readonly enabled: boolean;
  readonly recordUserId: boolean;
}

/**
 * Applies defaults and checks the `telemetry` option.
 *
 * @throws InvalidArgumentError - naming the option.
 */
export function resolveTelemetryOptions(option: boolean | VaneTelemetryOptions | undefined): ResolvedTelemetryOptions {
  if (option === undefined || typeof option === 'boolean') return { enabled: option ?? true, recordUserId: false };
  if (typeof option !== 'object' || option === null)
    throw new InvalidArgumentError('telemetry must be a boolean or { enabled?, recordUserId? }');
  for (const name of ['enabled', 'recordUserId'] as const) {
    if (option[name] !== undefined && typeof option[name] !== 'boolean')
      throw new InvalidArgumentError(`telemetry.${name} must be a boolean`);
  }
  return { enabled: option.enabled ?? true, recordUserId: option.recordUserId ?? false };
}
