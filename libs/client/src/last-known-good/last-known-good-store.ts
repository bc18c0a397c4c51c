/**
 * The seam between the client and wherever its last-known-good backup lives.
 *
 * @packageDocumentation
 */

/**
 * Where a client keeps its last-known-good backup: a file, a Redis key, a
 * DynamoDB item… The client ships {@link FileBackupStore} and
 * {@link RedisBackupStore}; implement these three methods to plug in another.
 *
 * The document is opaque text (JSON): store it and give it back byte for
 * byte. Secrets inside it are already encrypted and the whole document is
 * authenticated, so a store needs no protection of its own beyond keeping
 * other writers out. One store may serve many services: `serviceId` (the
 * service's base URL, e.g. `https://shop.vane.example`) tells their
 * documents apart — use it to build the file name or the key.
 *
 * A store's failures (a thrown error, a rejection) are caught by the client:
 * a failed `read` counts as "no backup", a failed `write` is logged and
 * retried with the next revision. Neither ever reaches the application.
 *
 * @example A DynamoDB store
 * ```ts
 * const dynamoStore: LastKnownGoodStore = {
 *   describe: (serviceId) => `DynamoDB table vane-backups, item ${serviceId}`,
 *   async read(serviceId) {
 *     const out = await ddb.send(new GetItemCommand({ TableName: 'vane-backups', Key: { id: { S: serviceId } } }));
 *     return out.Item?.doc?.S ?? null;
 *   },
 *   async write(serviceId, document) {
 *     await ddb.send(new PutItemCommand({ TableName: 'vane-backups', Item: { id: { S: serviceId }, doc: { S: document } } }));
 *   },
 * };
 * ```
 */
export interface LastKnownGoodStore {
  /**
   * Names where the backup of `serviceId` lives, for log lines (e.g.
   * `file /var/lib/app/vane/shop.json`, `redis key vane:last-known-good:…`).
   * Must not contain a credential.
   */
  describe(serviceId: string): string;
  /** The document last written for `serviceId`, or `null` when there is none. */
  read(serviceId: string): Promise<string | null>;
  /** Replaces the document of `serviceId`. Should be atomic: a reader sees the old document or the new one. */
  write(serviceId: string, document: string): Promise<void>;
}
