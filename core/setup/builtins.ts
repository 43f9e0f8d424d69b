/**
 * The registry of built-ins: the plugins spade-bench ships (roles, providers, sandboxes,
 * suites) by id, and its report. With the command line (core/cli/), this is the only part of
 * core that names modules of plugins/, benchmarks/ and reports/; the rest of core knows them
 * through their interfaces. Each is imported only when used, so an SDK, an interpreter or the
 * report's charting library is never loaded unless a run needs it.
 */
import type { BuiltinEntry, PluginDefinition } from '../config/plugin.js';
import type { RunResults } from '../results/results.js';
import type { Language } from '../types.js';

const builtin = (plugin: PluginDefinition): BuiltinEntry => ({
  kind: plugin.kind,
  id: plugin.id,
  description: plugin.description,
  load: async () => plugin,
});

/** A provider whose module (and SDK) is imported only when a run names it. */
const provider = (id: string, description: string, load: () => Promise<PluginDefinition>): BuiltinEntry => ({
  kind: 'provider',
  id,
  description,
  load,
});

/**
 * The sandbox each language gets when the config names none, in order of preference: the first
 * that can run on this machine (a sandbox plugin's unavailable() says why it cannot).
 */
export const DEFAULT_SANDBOXES: Record<Language, readonly string[]> = {
  javascript: ['isolated-vm'],
  python: ['cpython', 'pyodide'],
};

export const BUILTINS: readonly BuiltinEntry[] = [
  // Roles
  builtin({
    kind: 'designer',
    id: 'reference',
    description: 'Offline reference policy (not a model): writes JavaScript environments from parameterised families (tool-use games among them) and moves their difficulty toward the agent\'s frontier.',
    create: async () => (await import('../../plugins/reference/designer.js')).createReferenceDesigner(),
  }),
  builtin({
    kind: 'agent',
    id: 'reference',
    description: 'Offline reference policy (not a model): a budgeted search agent that reads the observations (and the tools of tool-use games).',
    create: async (options) => (await import('../../plugins/reference/agent.js')).createReferenceAgent(options as { budget?: number }),
  }),
  // Providers (each usable as --designer or --agent PREFIX:MODEL)
  provider('openai', 'OpenAI Chat Completions through the official openai SDK. Key: OPENAI_API_KEY; OPENAI_BASE_URL for another server.', async () => (await import('../../plugins/providers/openai.js')).default),
  provider('anthropic', 'Anthropic Messages through the official @anthropic-ai/sdk. Key: ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL for another server.', async () => (await import('../../plugins/providers/anthropic.js')).default),
  provider('vllm', 'vLLM server (OpenAI protocol) at http://127.0.0.1:8000/v1; no key needed. Override with baseURL or VLLM_BASE_URL.', async () => (await import('../../plugins/providers/presets.js')).vllm),
  provider('ollama', 'Ollama (OpenAI protocol) at http://127.0.0.1:11434/v1; no key needed. Override with baseURL or OLLAMA_BASE_URL.', async () => (await import('../../plugins/providers/presets.js')).ollama),
  provider('llamacpp', "llama.cpp's llama-server (OpenAI protocol) at http://127.0.0.1:8080/v1; no key needed. Override with baseURL or LLAMACPP_BASE_URL.", async () => (await import('../../plugins/providers/presets.js')).llamacpp),
  provider('freetoken', "FreeToken's ft serve (OpenAI protocol) at http://127.0.0.1:1919/v1; no key needed. Override with baseURL or FREETOKEN_BASE_URL.", async () => (await import('../../plugins/providers/presets.js')).freetoken),
  // Sandboxes
  builtin({
    kind: 'sandbox',
    id: 'isolated-vm',
    languages: ['javascript'],
    description: 'JavaScript in a separate V8 isolate (isolated-vm): time, memory and output limits, no host access. The default.',
    create: async (options) => (await import('../../plugins/sandboxes/isolated-vm.js')).createIsolatedVmSandbox(options),
    fingerprint: async () => (await import('../../plugins/sandboxes/fingerprints.js')).isolatedVmFingerprint(),
  }),
  builtin({
    kind: 'sandbox',
    id: 'pyodide',
    languages: ['python'],
    description: 'Python (Pyodide, WebAssembly) in a jailed child process per worker: empty environment, no network, read-only file system where the OS allows; no third-party packages. For .py where cpython\'s jail cannot be set up.',
    create: async (options) => (await import('../../plugins/sandboxes/pyodide/sandbox.js')).createPyodideSandbox(options),
    fingerprint: async () => (await import('../../plugins/sandboxes/fingerprints.js')).pyodideFingerprint(),
  }),
  builtin({
    kind: 'sandbox',
    id: 'cpython',
    languages: ['python'],
    description: "Python in Debian's CPython with numpy, networkx and sympy, in a bubblewrap jail (no network, read-only files, unprivileged, hard limits, wall time enforced by killing the jail). The default for .py where its jail works.",
    create: async (options) => (await import('../../plugins/sandboxes/cpython/sandbox.js')).createCpythonSandbox(options),
    fingerprint: async () => (await import('../../plugins/sandboxes/fingerprints.js')).cpythonFingerprint(),
    unavailable: async () => (await import('../../plugins/sandboxes/cpython/jail.js')).checkJail().problem,
  }),
  builtin({
    kind: 'sandbox',
    id: 'vm2',
    languages: ['javascript'],
    description: 'JavaScript in vm2, for users who already depend on it. NOT a security boundary (vm2\'s own README says so): use isolated-vm for untrusted code.',
    create: async (options) => (await import('../../plugins/sandboxes/vm2.js')).createVm2Sandbox(options),
    fingerprint: async () => (await import('../../plugins/sandboxes/fingerprints.js')).vm2Fingerprint(),
  }),
  // Static suites
  builtin({
    kind: 'suite',
    id: 'procedural',
    description: 'The reference families at fixed difficulties and horizons 1 to 64 (tool-use games at 8 and 16), with a frozen seed.',
    create: async () => (await import('../../benchmarks/procedural.js')).createProceduralSuite(),
  }),
  builtin({
    kind: 'suite',
    id: 'humaneval',
    description: 'HumanEval: 164 Python programming problems, run with check(candidate) in the Python sandbox (downloaded once, cached).',
    create: async (_argument, options) => (await import('../../benchmarks/humaneval.js')).createHumanEvalSuite(options),
  }),
  builtin({
    kind: 'suite',
    id: 'gsm8k',
    description: 'GSM8K test split: 1,319 maths word problems, answer from \\boxed{} or the last number (downloaded once, cached).',
    create: async (_argument, options) => (await import('../../benchmarks/gsm8k.js')).createGsm8kSuite(options),
  }),
  builtin({
    kind: 'suite',
    id: 'spade-pool',
    description: "spade-pool:PATH (a pool in SPADE's layout: games/, manifest.jsonl, checksums.sha256; a folder of .py files; or a JSONL) or spade-pool:hf:OWNER/NAME@REVISION (downloaded from the Hugging Face Hub), as a static suite.",
    create: async (argument, options) => (await import('../../benchmarks/spade-pool.js')).createSpadePoolSuite(argument ?? '', options),
  }),
  builtin({
    kind: 'suite',
    id: 'rlve',
    description: "RLVE's 400 verifiable environments: tasks (environment, difficulty, seed) made and scored by RLVE's own code in the Python sandbox (suiteOptions.rlve: environments, difficulties, seedsPerLevel); rlve:FILE, an RLVE evaluation file.",
    create: async (argument, options) => {
      if (argument) return (await import('../../benchmarks/rlve/file-suite.js')).createRlveFileSuite(argument, options);
      return (await import('../../benchmarks/rlve/suite.js')).createRlveSuite(options);
    },
  }),
  builtin({
    kind: 'suite',
    id: 'rlve-heldout',
    description: "RLVE's held-out test set: 2,500 tasks of 50 environments, prompts as given, scored by RLVE's code (downloaded once, cached).",
    create: async (_argument, options) => (await import('../../benchmarks/rlve/file-suite.js')).createRlveHeldoutSuite(options),
  }),
  builtin({
    kind: 'suite',
    id: 'rlve-adaptive',
    description: "RLVE's adaptive difficulty, the fixed-pool baseline of SPADE's paper: RLVE environments (official16 by default) played in rounds beside self-play, each one's difficulty from a sliding window that moves up as the agent wins (curriculum.* in the config).",
    create: async (_argument, options) => (await import('../../benchmarks/rlve/adaptive.js')).createRlveAdaptiveSuite(options),
  }),
  // The paper's games table (SPADE's eval_offline), each scored as SPADE's evaluation scores it
  builtin({
    kind: 'suite',
    id: 'aime',
    description: "AIME 2025 and 2026 (aime:2025 for one year): 64 samples per problem at SPADE's sampling, the last \\boxed{} checked as an integer; aime<Y>_pass1 and pass@64. SPADE's own files with --data-dir (aime-<year>/aime-<year>.jsonl).",
    create: async (argument, options) => (await import('../../benchmarks/games/aime.js')).createAimeSuite(argument, options),
  }),
  builtin({
    kind: 'suite',
    id: 'gpqa-diamond',
    description: "GPQA-Diamond (198 questions; gpqa-diamond:FILE for the release's CSV): options shuffled as SPADE does, 8 samples per question; gpqa_diamond_avg_at_n. Gated: HF_TOKEN. Task text private unless --show-task-text.",
    create: async (argument, options) => (await import('../../benchmarks/games/gpqa.js')).createGpqaSuite(argument, options),
  }),
  builtin({
    kind: 'suite',
    id: 'livecodebench',
    description: "LiveCodeBench release_v6 (livecodebench:FILE for a release file such as test6.jsonl): SPADE's prompt, the last python block run against every public and private test as LiveCodeBench's runner does, in the Python sandbox's jail; livecodebench_pass_at_1.",
    create: async (argument, options) => (await import('../../benchmarks/games/livecodebench.js')).createLiveCodeBenchSuite(argument, options),
  }),
  builtin({
    kind: 'suite',
    id: 'reasoning-gym',
    description: "Reasoning-Gym's hard split, 100 tasks (reasoning-gym:TASK for one): 8 episodes each, reasoning-gym's own generators and score_answer in the Python sandbox, SPADE's prompt; win rates per SPADE category (gem_eval/category_rg_*/win_rate). A task whose module needs a package the sandbox lacks is invalid, naming it (--python for a virtual environment).",
    create: async (argument, options) => (await import('../../benchmarks/games/reasoning-gym.js')).createReasoningGymSuite(argument, options),
  }),
  ...(['jsonl', 'parquet', 'hf'] as const).map((kind) =>
    builtin({
      kind: 'suite',
      id: kind,
      description: `${kind === 'hf' ? 'hf:owner/dataset, a Hugging Face dataset' : `${kind}:PATH, a ${kind === 'jsonl' ? 'JSON Lines' : 'Parquet'} file`} of questions and answers; map its fields with --field question=FIELD --field answer=FIELD (or suiteOptions["${kind}:..."].mapping), checker: exact, numeric...`,
      create: async (argument, options) => {
        const { createDatasetSuite, parseFieldMapping } = await import('../../benchmarks/dataset.js');
        const { mapping, ...rest } = options as { mapping?: unknown };
        return createDatasetSuite(kind, argument ?? '', parseFieldMapping(mapping ?? {}, `the field mapping of ${kind}:${argument} (--field, suiteOptions["${kind}:${argument}"].mapping)`), rest);
      },
    }),
  ),
];

/** The built-in HTML report of one or more runs (one self-contained file). */
export async function renderReport(runs: RunResults[]): Promise<readonly string[]> {
  return (await import('../../reports/html.js')).htmlReportParts(runs);
}
