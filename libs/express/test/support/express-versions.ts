import express5 from 'express';
import express4 from 'express4';

/** Builds an app; both majors' apps are used through Express 5's types (their runtime shapes agree for what tests touch). */
export type AppFactory = () => express5.Express;

/** Express 4 and Express 5, for `describe.each`. */
export const EXPRESS_VERSIONS: ReadonlyArray<readonly [string, AppFactory]> = [
  ['Express 4', () => express4() as unknown as express5.Express],
  ['Express 5', () => express5()],
];
