/** The deepest nesting of arrays and objects accepted in a request body or a seed file. */
export const MAX_JSON_DEPTH = 64;

export { exceedsJsonDepth } from '@vane/common';
