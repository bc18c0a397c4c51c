/**
 * Live resources: instances built from configs and secrets, rebuilt and
 * swapped when those change, with no restart and no failed request.
 *
 * @packageDocumentation
 */
export { LiveResource } from './live-resource.js';
export { LIVE_RESOURCE_DEFAULTS } from './live-resource-definition.js';
export type {
  LiveResourceDefinition,
  LiveResourceValues,
  LiveResourceConfigValue,
} from './live-resource-definition.js';
export type {
  LiveResourceState,
  LiveResourceStatus,
  LiveResourceEvent,
  LiveResourceRebuiltEvent,
  LiveResourceRebuildFailedEvent,
  LiveResourceDisposedEvent,
  LiveResourceListener,
} from './live-resource-events.js';
export { tlsCertificate, keepSecureContextCurrent } from './tls-certificate.js';
export type { TlsCertificate, TlsCertificateOptions, TlsPemSource } from './tls-certificate.js';
