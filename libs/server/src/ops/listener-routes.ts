/**
 * Which route families one listener serves. The main listener serves the
 * service interface (`/v1/`), and the admin API, console and ops routes
 * unless they were given listeners of their own (`--admin-listen`,
 * `--ops-listen`).
 */
export interface ListenerRoutes {
  /** `/v1/`. */
  readonly service: boolean;
  /** `/admin/v1/` and `/console/`. */
  readonly admin: boolean;
  /** `/healthz`, `/readyz`, `/metrics`. */
  readonly ops: boolean;
}

/** A listener that serves everything: the local server's single port. */
export const ALL_ROUTES: ListenerRoutes = { service: true, admin: true, ops: true };
