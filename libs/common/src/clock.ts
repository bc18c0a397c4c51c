/** A clock in milliseconds since the epoch: inject one to move time by hand in tests. */
export interface Clock {
  /** Current time in milliseconds since the epoch. */
  now(): number;
}
