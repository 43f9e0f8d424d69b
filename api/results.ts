/**
 * `spade-bench/results`: a run's results. results.json read and written (readResults gives
 * every environment's source and checks in full), its types, and the exports of a run: episodes
 * as JSONL for RL trainers, valid environments as SPADE's pool layout.
 */

/** The results' types (RunResults and its parts) and the schema version. */
export * from '../core/results/results.js';
/** results.json on disk: read it into RunResults, or write it; the stored shapes. */
export { readResults, writeResults, resultsFromStored, sourceFromParts } from '../core/results/results-file.js';
/** The shapes results.json stores: code and checks once per suite. */
export type { StoredResults, StoredSuite, StoredEnvironment } from '../core/results/results-file.js';
/** Export a run's episodes (JSONL for RL trainers) or its valid environments (program files); a program's code hash. */
export { exportEpisodes, exportPool, codeHash } from '../core/results/export.js';
/** SPADE's pool layout: games/game_{round}_{index}_{skill}.py, their hints, manifest.jsonl, env_memory.json, checksums.sha256. */
export {
  GAMES_FOLDER, MANIFEST_FILE, CHECKSUMS_FILE, HINT_SUFFIX, MEMORY_FILE, GAME_HEADER, gameFileName, parseGameFileName, gameFileText, parseChecksums, insidePool, sha256Hex,
} from '../core/results/pool-layout.js';
/** What each line of a pool's manifest.jsonl holds, as spade-bench writes it. */
export type { PoolManifestLine, MemoryRecord } from '../core/results/pool-layout.js';
/** Write a file so it is never half-written (temporary file, fsync, rename). */
export { writeFileAtomic } from '../core/results/fs.js';
