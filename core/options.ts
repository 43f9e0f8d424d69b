/**
 * The options of a run and their defaults: the one place a default value lives.
 */
import type { SandboxLimits } from './concepts/sandbox.js';

/** Limits per environment when the config sets none (`limits` in the config). */
export const DEFAULT_LIMITS: SandboxLimits = {
  callTimeoutMs: 1000,
  memoryMb: 64,
  maxOutputBytes: 64 * 1024,
  maxCalls: 10_000,
};
