/** `spade-bench/metrics`: the metrics' building blocks, for figures of your own (docs/report.md lists what a run reports). */

/** pass@k and pass^k, the Vendi score, the Wilson interval (and its exact quantile), distinct-n. */
export { passAtK, passHatK, vendiScore, wilsonInterval, Z_95, distinctN } from '../core/metrics/index.js';
