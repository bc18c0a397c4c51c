/**
 * The store's tokens aggregate: projects, scoped admin tokens, and the access ledgers (console logouts, wrong admin-token guesses).
 *
 * @module
 */
import type { AdminRight, AdminTokenRecord, GuessRecord, ProjectRecord, TokenScope } from './model.js';
import { applyStateChange } from './state-change.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ConflictError } from '../errors/conflict-error.js';
import type { StoreCore } from './store-core.js';

/** How often a token's `last_used_at` is recorded at most, in ms. */
const TOKEN_USE_RESOLUTION_MS = 60_000;

/** Projects, scoped admin tokens, and the access ledgers (console logouts, wrong admin-token guesses). */
export class StoreTokens {
  constructor(private readonly core: StoreCore) {}

  /** Creates a project (a name already taken changes nothing); returns whether it was created. */
  putProject(name: string, actor: string): boolean {
    if (this.core.data.projects.has(name)) return false;
    const project: ProjectRecord = { created_at: this.core.isoNow() };
    this.core.data.projects.set(name, project);
    const audit = this.core.audit({ actor, action: 'project.put', service: null, key: name, revision: null });
    this.core.listeners.mutation?.({ type: 'project', name, project, audit });
    return true;
  }

  /** The scoped admin token of this name, if any. */
  token(name: string): Readonly<AdminTokenRecord> | undefined {
    return this.core.data.tokens.get(name);
  }

  /** The name of the admin token whose hash this is, if any. */
  tokenNameByHash(hash: string): string | undefined {
    for (const [name, token] of this.core.data.tokens) if (token.hash === hash) return name;
    return undefined;
  }

  /**
   * Records a new scoped admin token (its hash: the token is shown once, by the caller).
   *
   * @throws ConflictError when the name is taken.
   */
  createToken(name: string, hash: string, scope: TokenScope, rights: AdminRight[], actor: string): AdminTokenRecord {
    if (this.core.data.tokens.has(name))
      throw new ConflictError(`an admin token named "${name}" exists: revoke it first`);
    const token: AdminTokenRecord = { hash, scope, rights, created_at: this.core.isoNow(), last_used_at: null };
    this.core.data.tokens.set(name, token);
    const audit = this.core.audit({ actor, action: 'token.create', service: null, key: name, revision: null });
    this.core.listeners.mutation?.({ type: 'token', name, token, audit });
    return token;
  }

  /** Revokes a scoped admin token at once. @throws NotFoundError for an unknown name. */
  revokeToken(name: string, actor: string): void {
    if (!this.core.data.tokens.delete(name)) throw new NotFoundError(`no admin token named "${name}"`);
    const audit = this.core.audit({ actor, action: 'token.revoke', service: null, key: name, revision: null });
    this.core.listeners.mutation?.({ type: 'token', name, token: null, audit });
  }

  /**
   * Notes that a token was used now: recorded at most once a minute per
   * token, so reading with a token does not make every read a write.
   */
  touchToken(name: string): void {
    const token = this.core.data.tokens.get(name);
    if (!token) return;
    const now = this.core.clock.now();
    if (token.last_used_at !== null && now - Date.parse(token.last_used_at) < TOKEN_USE_RESOLUTION_MS) return;
    token.last_used_at = this.core.isoNow();
    this.core.listeners.mutation?.({ type: 'token.used', name, last_used_at: token.last_used_at });
  }

  /** Whether the console session whose id hashes to `idHash` was logged out (and has not expired since). */
  sessionEnded(idHash: string): boolean {
    return this.core.data.access.ended_sessions.has(idHash);
  }

  /** Records a console logout, kept until the session would have expired (`expiresAtMs`). */
  endSession(idHash: string, expiresAtMs: number): void {
    const change = {
      type: 'session.end',
      id_hash: idHash,
      expires_at_ms: expiresAtMs,
      at_ms: this.core.clock.now(),
    } as const;
    applyStateChange(this.core.data, change);
    this.core.listeners.mutation?.(change);
  }

  /** The wrong admin-token guesses recorded for `address` (a hash of the client's address). */
  wrongGuesses(address: string): Readonly<GuessRecord> | undefined {
    return this.core.data.access.guesses.get(address);
  }

  /** Records `address`'s wrong guesses after one more; those older than `forgetBeforeMs` are dropped. */
  recordWrongGuess(address: string, guesses: GuessRecord, forgetBeforeMs: number): void {
    const change = { type: 'guess.wrong', address, guesses: { ...guesses }, forget_before_ms: forgetBeforeMs } as const;
    applyStateChange(this.core.data, change);
    this.core.listeners.mutation?.(change);
  }
}
