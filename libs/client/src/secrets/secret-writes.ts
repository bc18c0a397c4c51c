/**
 * Secret writes (PROTOCOL §9): create or update, delete, delete a version.
 * They never touch the cache: a change arrives by the stream or the next sync.
 *
 * @packageDocumentation
 */
import { isVaneKey } from '../util/vane-key.js';
import type { Credentials } from '../http/credentials.js';
import {
  ClientClosedError,
  InvalidArgumentError,
  PublicKeySecretAccessError,
  UnexpectedResponseError,
} from '../errors.js';
import { parseJsonAnswer } from '../http/json-answer.js';
import type { ServiceAnswer, ServiceHttp } from '../http/service-http.js';
import type { SecretType } from '@vane/client-core';
import type { SecretWriteResult } from '@vane/common';

export type { SecretWriteResult };

/** Options of `client.setSecret`. */
export interface SetSecretOptions {
  /** `text` (a string) or `file` (materialised as a file by readers). @default 'text' */
  readonly type?: SecretType;
}

/**
 * Sends secret writes. Every argument is checked synchronously, before any
 * request; a public key is refused first of all.
 */
export class SecretWriter {
  constructor(
    private readonly http: ServiceHttp,
    private readonly credentials: Credentials,
    private readonly signal: AbortSignal,
  ) {}

  /** `PUT /v1/secrets/{key}`. */
  async set(key: string, value: string, options: SetSecretOptions): Promise<SecretWriteResult> {
    this.#check(key);
    if (typeof value !== 'string')
      throw new InvalidArgumentError(
        `setSecret: value must be a string, got ${value === null ? 'null' : typeof value}`,
      );
    if (typeof options !== 'object' || options === null)
      throw new InvalidArgumentError(
        `setSecret: options must be an object, got ${options === null ? 'null' : typeof options}`,
      );
    const type = options.type ?? 'text';
    if (type !== 'text' && type !== 'file') throw new InvalidArgumentError('setSecret: type must be "text" or "file"');
    return this.#send('PUT', `v1/secrets/${encodeURIComponent(key)}`, { value, type }, `secret "${key}"`).then(
      (answer) => {
        const doc = parseJsonAnswer(answer, 'secret-write') as Record<string, unknown>;
        const version = doc['version'];
        const gotType = doc['type'];
        if (typeof version !== 'number' || !Number.isSafeInteger(version))
          throw new UnexpectedResponseError('secret-write: the answer has no integer "version"', {
            status: answer.status,
          });
        return { key, type: gotType === 'file' || gotType === 'text' ? gotType : type, version };
      },
    );
  }

  /** `DELETE /v1/secrets/{key}`. */
  async delete(key: string): Promise<void> {
    this.#check(key);
    return this.#send('DELETE', `v1/secrets/${encodeURIComponent(key)}`, undefined, `secret "${key}"`).then(
      () => undefined,
    );
  }

  /** `DELETE /v1/secrets/{key}/versions/{version}`. */
  async deleteVersion(key: string, version: number): Promise<void> {
    this.#check(key);
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
      throw new InvalidArgumentError(
        `deleteSecretVersion: version must be a 1-based integer, got ${typeof version === 'number' ? String(version) : typeof version}`,
      );
    }
    return this.#send(
      'DELETE',
      `v1/secrets/${encodeURIComponent(key)}/versions/${version}`,
      undefined,
      `version ${version} of secret "${key}"`,
    ).then(() => undefined);
  }

  #check(key: string): void {
    if (this.credentials.keyType === 'pk') throw new PublicKeySecretAccessError();
    if (typeof key !== 'string' || !isVaneKey(key))
      throw new InvalidArgumentError('secret key must be 1 to 256 characters from [A-Za-z0-9._-]');
    if (this.signal.aborted) throw new ClientClosedError();
  }

  async #send(
    method: 'PUT' | 'DELETE',
    path: string,
    body: { value: string; type: string } | undefined,
    subject: string,
  ): Promise<ServiceAnswer> {
    const answer = await this.http.fetch({ method, path, body, operation: 'secret-write' }, this.signal);
    if (answer.status !== 200 && answer.status !== 204) {
      // A server message may quote the value sent (e.g. a validation error): it never reaches the error.
      throw this.http.errorFor(answer.status, answer.text, answer.header, 'secret-write', subject, body?.value);
    }
    return answer;
  }
}
