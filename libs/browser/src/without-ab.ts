/**
 * The A/B methods of a client given no A/B plug-in: each says which plug-in
 * it needs. The plug-in (`@vane/browser/ab`) replaces them with its own.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '@vane/client-core';
import type { VaneAb } from './plugin.js';

/** The error an A/B method, or the `user` option, raises without the plug-in. */
export function noAb(what: string): InvalidArgumentError {
  return new InvalidArgumentError(`${what} needs the A/B plug-in: ab: abTesting() of @vane/browser/ab`);
}

/** The three A/B methods, each refused until the plug-in replaces them. */
export function withoutAb(): VaneAb {
  return {
    abFlag: () => {
      throw noAb('abFlag');
    },
    evaluateAb: async () => {
      throw noAb('evaluateAb');
    },
    setUser: () => {
      throw noAb('setUser');
    },
  };
}
