import { IntrinsicException } from '@nestjs/common';

/**
 * What a GraphQL operation refused by `@FeatureFlag()` gets by default. Its
 * `extensions` travel to the caller as they are (graphql-js copies them from
 * the error a resolver throws), so the answer carries
 * `extensions.code: 'NOT_FOUND'` (the default `404`) or `'FORBIDDEN'` (`403`),
 * not Apollo's `INTERNAL_SERVER_ERROR`. Not an `HttpException` (Nest's Apollo
 * driver would turn a 404 into `INTERNAL_SERVER_ERROR`), and not logged as an
 * error by Nest: a refused request is no failure of the app.
 */
export class FeatureFlagGraphQLError extends IntrinsicException {
  /** The GraphQL error extensions: `code` is `NOT_FOUND` or `FORBIDDEN`. */
  readonly extensions: { readonly code: 'NOT_FOUND' | 'FORBIDDEN' };

  /** @param status - `404` (the field looks absent) or `403`. */
  constructor(status: 403 | 404) {
    super(status === 404 ? 'Not Found' : 'Forbidden');
    this.name = 'FeatureFlagGraphQLError';
    this.extensions = { code: status === 404 ? 'NOT_FOUND' : 'FORBIDDEN' };
  }
}
