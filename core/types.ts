/**
 * The core concepts of spade-bench, as types: the contract every plugin kind and every part of
 * the run loop speaks. Nothing here imports a vendor SDK or a sandbox library.
 *
 * This module is the stable entry of the contract; each concept lives in its own file under
 * core/concepts/ (type declarations only, no cycles between them). The runtime pieces a
 * plugin needs with them, SandboxError and the default limits, are re-exported here too.
 */
export type * from './concepts/environment.js';
export type * from './concepts/sandbox.js';
export type * from './concepts/provider.js';
export type * from './concepts/tools.js';
export type * from './concepts/roles.js';
export type * from './concepts/suite.js';
export type * from './concepts/episode.js';
export { SandboxError } from './errors.js';
export { DEFAULT_LIMITS } from './config/options.js';
