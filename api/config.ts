/**
 * `spade-bench/config`: configs checked and resolved as the command line does, and the table of
 * options (every flag, config key and default). loadConfig and defineConfig are in the entry.
 */

/** Check a config object (UsageError naming the key path), and resolve one over the defaults. */
export { validateConfig, resolveConfig } from '../core/config/config.js';
/** The config of a run given nothing (the offline default). */
export { DEFAULT_CONFIG } from '../core/config/config.js';
/** Every option with its default: the defaults, the table itself, and the data folder used when none is set. */
export { DEFAULTS, RUN_OPTIONS, defaultDataDir } from '../core/config/options.js';
