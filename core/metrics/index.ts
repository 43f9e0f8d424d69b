/**
 * Metrics: the estimators (pass@k, pass^k, Vendi, Wilson, distinct-n, NCD, percentiles) and the
 * builders the run loop calls to fill `SuiteResult.metrics`, and the table of metrics (table.ts)
 * that names each metric, computes it, and says how and where it shows.
 */
export { passAtK, passHatK } from './pass-at-k.js';
export { wilsonInterval, Z_95 } from './intervals.js';
export { vendiScore, vendiFromEigenvalues } from './vendi.js';
export { featureVendi, prepareFeatures, preparedVendi, EXACT_LIMIT, HASHED_DIMENSION, type FeatureVendi, type PreparedFeatures } from './feature-vendi.js';
export { symmetricEigenvalues } from './eigenvalues.js';
export { distinctN, ngrams, words } from './ngrams.js';
export { percentile, percentiles } from './percentiles.js';
export { normalizedCompressionDistance, meanPairwiseNcd, MAX_NCD_PAIRS } from './compression.js';
export { javascriptNodeTypes, programNodeTypes, structureFeatures, type ProgramForStructure } from './structure.js';
export { bootstrapMean, percentileInterval, resample } from './bootstrap.js';
export { validityMetrics, readingValidity } from './validity.js';
export { skillMetrics, difficultyBands, type PlayedEnvironment } from './skills-bands.js';
export { diversityMetrics, textFeatures, programFeatures, type PreparedDiversity } from './diversity.js';
export { equalSizeDiversity, addEqualSizeDiversity, rememberDiversityPool, type DiversityPool, type EqualSizeOptions } from './equal-size.js';
export { successMetrics, successAtT, passAtKCurve, successByDifficulty } from './success.js';
export { throughputMetrics, latencySummary, type ThroughputExtras } from './throughput.js';
export { usageMetrics, type UsageRecord } from './usage.js';
export { gameTypeMetrics, type GameTypedEnvironment } from './game-type.js';
export { METRICS, computeMetrics, defineMetric, headlineOf, metricsMarkdown, metricsShownIn, type EvaluatedEnvironment, type Figure, type MetricFormat, type MetricPlace, type MetricRow, type PoolEvidence } from './table.js';
