import { readFileSync } from 'node:fs';
import { Injectable } from '@nestjs/common';
import { VaneClient } from '@vane/client';
import type { VaneServer } from '@vane/server';
import { waitForRevision } from '@vane/server/testing';

/** What a handler reads through the injected client: the guard's flag, a config, a text and a file secret. */
export interface Reads {
  readonly flag: boolean;
  readonly pool: number | undefined;
  readonly revision: number;
  readonly key: string | null;
  /** Content of the file `secretFile()` names. */
  readonly pem: string;
}

/** What `@Flag()` and `@Secret()` gave the handler. */
export interface Params {
  readonly flag: boolean;
  readonly key: string;
  /** Path `@Secret(…, { file: true })` gave. */
  readonly pemPath: string;
}

/** What a handler answers: its parameters (the file read after the change), its reads before the change landed, and after. */
export interface Answer {
  readonly params: { readonly flag: boolean; readonly key: string; readonly pem: string };
  readonly before: Reads;
  readonly after: Reads;
}

/**
 * Changes, while a request runs, every kind of value it reads: the guard's
 * flag (`new-checkout`) goes off, `db.pool.max` goes up, both secrets rotate;
 * resolves once the client has the change (its update event, no sleep).
 */
export class MidRequestChange {
  #round = 0;

  constructor(
    private readonly server: VaneServer,
    private readonly client: VaneClient,
  ) {}

  /** The pool size, key and PEM of the last change made. */
  get current(): { pool: number; key: string; pem: string } {
    return { pool: 100 + this.#round, key: `rk_round_${this.#round}`, pem: `pem-round-${this.#round}` };
  }

  /** The change, made mid-request. */
  async apply(): Promise<void> {
    this.#round++;
    const { pool, key, pem } = this.current;
    this.server.admin.setConfig('shop', 'db.pool.max', pool);
    this.server.admin.setSecret('shop', 'stripe.api_key', key);
    this.server.admin.setSecret('shop', 'tls.client_pem', pem, 'file');
    await waitForRevision(this.client, this.server.admin.setFlag('shop', 'new-checkout', { is_enabled: false }));
  }

  /** Turns the flag back on, so the next request gets through. */
  async restore(): Promise<void> {
    await waitForRevision(this.client, this.server.admin.setFlag('shop', 'new-checkout', { is_enabled: true }));
  }
}

/** A provider of {@link MidRequestChange} on the app's client and `server`. */
export function midRequestChange(server: VaneServer): {
  provide: typeof MidRequestChange;
  useFactory: (client: VaneClient) => MidRequestChange;
  inject: [typeof VaneClient];
} {
  return {
    provide: MidRequestChange,
    useFactory: (client) => new MidRequestChange(server, client),
    inject: [VaneClient],
  };
}

/**
 * A service the handlers call: it reads through the injected `VaneClient`,
 * has the change made, and reads again.
 */
@Injectable()
export class ShopReads {
  constructor(
    private readonly vane: VaneClient,
    private readonly change: MidRequestChange,
  ) {}

  /** Reads, changes every value mid-request, reads again. */
  async acrossAChange(params: Params): Promise<Answer> {
    const before = this.#read();
    await this.change.apply();
    const answer = { flag: params.flag, key: params.key, pem: readFileSync(params.pemPath, 'utf8') };
    return { params: answer, before, after: this.#read() };
  }

  #read(): Reads {
    return {
      flag: this.vane.flag('new-checkout'),
      pool: this.vane.config<number>('db.pool.max'),
      revision: this.vane.revision,
      key: this.vane.secret('stripe.api_key'),
      pem: readFileSync(this.vane.requireSecretFile('tls.client_pem'), 'utf8'),
    };
  }
}
