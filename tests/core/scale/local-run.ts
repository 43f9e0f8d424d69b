/**
 * Test helpers for the scale tests: a run executed in this process with a chosen evaluator or
 * shard (compare runs with tests/helpers/results.ts).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { resolveConfig, type SpadeConfig, type UserConfig } from '../../../core/config/config.js';
import type { Evaluator } from '../../../core/run/evaluate.js';
import type { Suite } from '../../../core/types.js';
import { executeRun } from '../../../core/run/run.js';
import type { RunSetup } from '../../../core/run/run-setup.js';
import { createRegistry, resolveRunParts } from '../../../core/setup/setup.js';
import { renderReport } from '../../../core/setup/builtins.js';
import { applyShard, type Shard } from '../../../core/scale/shard.js';
import { tempDir } from '../../helpers/cli.js';

/** A small offline run: two self-play rounds and a slice of the procedural suite. */
export function smallConfig(overrides: UserConfig = {}): SpadeConfig {
  return resolveConfig({
    seed: 7,
    suites: ['spade', 'procedural'],
    limit: 14,
    environmentsInFlight: 4,
    attempts: 2, selfplay: { rounds: 2, envsPerRound: 4 },
    ...overrides,
  });
}

export async function runLocally(config: SpadeConfig, options: { evaluator?: Evaluator; shard?: Shard; outDir?: string; extraSuites?: Suite[]; onProgress?: RunSetup['onProgress']; signal?: AbortSignal } = {}): Promise<string> {
  const outDir = options.outDir ?? path.join(tempDir('spade-scale-'), 'run');
  mkdirSync(outDir, { recursive: true });
  const parts = await resolveRunParts(createRegistry(), config);
  try {
    const all = { suites: [...parts.suites, ...(options.extraSuites ?? [])], selfplay: parts.selfplay };
    const sliced = options.shard ? applyShard(all, options.shard, outDir) : all;
    await executeRun({
      config,
      runId: path.basename(outDir),
      designer: parts.designer,
      agent: parts.agent,
      sandboxes: parts.sandboxes,
      suites: sliced.suites,
      selfplay: sliced.selfplay,
      outDir,
      versions: {},
      evaluator: options.evaluator,
      outsideUsage: parts.outsideUsage,
      onProgress: options.onProgress,
      signal: options.signal,
      renderReport,
    });
  } finally {
    await parts.close();
  }
  return outDir;
}
