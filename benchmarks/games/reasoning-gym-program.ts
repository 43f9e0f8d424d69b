/**
 * One episode of a Reasoning-Gym task as a Python environment program, run in the Python
 * sandbox with reasoning-gym on its path, as SPADE's GEM evaluation plays it
 * (spade/core/envs/gem_adapter.py's SpadeReasoningGymEnv, gem_evaluator.py):
 *
 *   - the dataset is reasoning-gym's own, `create_dataset(name, size=500, seed=42, **hard)` with
 *     the hard configuration of SPADE's rg_a3_hard.py; the episode's question is one entry of it;
 *   - the observation is SPADE's: the entry's question with GEM's `\boxed{}` line after it,
 *     inside SPADE's Reasoning-Gym prompt (its `<answer>` format), both read from SPADE's source;
 *   - step(reply): the last `<answer>...</answer>` (any case, across lines, stripped), else the
 *     content of the last `\boxed{...}` (GEM's extract_last_boxed_answer), scored by the task's
 *     own `score_answer(answer, entry)`; the episode ends on the first step, and it is won when
 *     that score is at least 1 (SPADE's "full-credit terminal rewards count as wins"). The
 *     score itself is in the step's info (`rg_score`).
 *
 * The program imports the task's module alone, under a stand-in `reasoning_gym` package that
 * skips the package's __init__ (which imports every task): a task whose module needs a package
 * the sandbox lacks fails to load with that module's name, and no other task is touched.
 * It has no solution(): reasoning-gym's `answer` field is not always an answer its scorer takes
 * (graph_color, propositional_logic and rush_hour accept many), so the gate leaves it unproven.
 */
import type { EnvironmentProgram } from '../../core/concepts/environment.js';

export interface ReasoningGymEpisode {
  /** The task, e.g. `ab`. */
  task: string;
  /** The module registering it, e.g. `reasoning_gym.algorithmic.ab`. */
  module: string;
  /** The hard configuration (SPADE's rg_a3_hard.py). */
  config: Record<string, unknown>;
  /** Which entry of the dataset this episode plays. */
  index: number;
  /** The dataset's seed (SPADE's: 42) and size (500). */
  seed: number;
  size: number;
  /** SPADE's prompt around the question, with `{observation}` where the question goes. */
  promptTemplate: string;
  /** GEM's line after the question. */
  questionSuffix: string;
  category: string;
  /** The host folder holding reasoning_gym/ (on the sandbox's Python path). */
  folder: string;
  /**
   * Packages of the sandbox's (networkx, numpy, sympy) the task's module imports: the program
   * names them, so the sandbox imports them before the program runs (their own imports do what
   * programs may not).
   */
  packages?: readonly string[];
}

const PROGRAM = String.raw`
import hashlib as _hashlib
import importlib as _importlib
import importlib.machinery as _machinery
import json as _json
import re as _re
import sys as _sys
import types as _types

_ANSWER = _re.compile(r'<answer>\s*(.*?)\s*</answer>', _re.S | _re.I)


def _stand_in_packages(module):
    """reasoning_gym and the packages above the task's module, without their __init__ (which imports every task)."""
    spec = _machinery.PathFinder.find_spec('reasoning_gym')
    if spec is None or not spec.submodule_search_locations:
        raise ImportError('reasoning_gym is not on the Python path')
    root = list(spec.submodule_search_locations)[0]
    parts = module.split('.')
    for i in range(1, len(parts)):
        name = '.'.join(parts[:i])
        if name not in _sys.modules:
            package = _types.ModuleType(name)
            package.__path__ = [root + '/' + '/'.join(parts[1:i])] if i > 1 else [root]
            package.__package__ = name
            _sys.modules[name] = package


def _dataset():
    _stand_in_packages(MODULE)
    # reasoning_gym.factory and reasoning_gym.coaching import each other: the package's own
    # __init__ loads coaching first, and so must a task imported alone (gsm_symbolic, acre, ...
    # import the factory first otherwise, and fail on the circle).
    _importlib.import_module('reasoning_gym.coaching')
    _importlib.import_module(MODULE)
    factory = _importlib.import_module('reasoning_gym.factory')
    return factory.create_dataset(TASK, size=SIZE, seed=SEED, **_json.loads(CONFIG))


def _last_boxed(text):
    at = text.rfind('\\boxed')
    if at < 0:
        at = text.rfind('\\fbox')
        if at < 0:
            return None
    depth, end = 0, None
    for i in range(at, len(text)):
        if text[i] == '{':
            depth += 1
        elif text[i] == '}':
            depth -= 1
            if depth == 0:
                end = i
                break
    if end is None:
        return None
    whole = text[at:end + 1]
    if not whole.startswith('\\boxed{') or not whole.endswith('}'):
        return None
    return whole[len('\\boxed{'):-1]


def _answer_of(reply):
    found = _ANSWER.findall(reply)
    return found[-1].strip() if found else _last_boxed(reply)


class ReasoningGymEnv:
    def __init__(self):
        self.dataset = _dataset()
        self.entry = None
        self.done = False

    def reset(self, seed=None):
        self.entry = self.dataset[INDEX]
        self.done = False
        question = self.entry['question'] + SUFFIX
        # The entry's reference answer, as a digest: enough to check the generator, nothing to read.
        digest = _hashlib.sha256(_json.dumps(self.entry['answer']).encode('utf-8')).hexdigest()
        return PROMPT.replace('{observation}', question, 1), {'horizon': 1, 'task': TASK, 'index': INDEX, 'answer_sha256': digest}

    def step(self, action):
        if self.done:
            return 'The episode is over.', 0, True, False, {'over': True}
        self.done = True
        answer = _answer_of(str(action))
        score = float(self.dataset.score_answer(answer=answer, entry=self.entry))
        won = score >= 1.0 - 1e-9
        return '', 1 if won else 0, True, True, {'rg_score': score, 'answer': None if answer is None else answer[:200]}
`;

/** The environment program of one episode of a task. */
export function reasoningGymProgram(episode: ReasoningGymEpisode): EnvironmentProgram {
  const literal = (value: unknown): string => JSON.stringify(value);
  const named = (episode.packages ?? []).map((name) => `import ${name}  # imported by the task's module\n`).join('');
  const source = `${named}TASK = ${literal(episode.task)}
MODULE = ${literal(episode.module)}
CONFIG = ${literal(JSON.stringify(episode.config))}
INDEX = ${episode.index}
SEED = ${episode.seed}
SIZE = ${episode.size}
PROMPT = ${literal(episode.promptTemplate)}
SUFFIX = ${literal(episode.questionSuffix)}
${PROGRAM}`;
  return {
    id: `reasoning-gym/${episode.task}/${episode.index}`,
    language: 'python',
    source,
    pythonPath: [episode.folder],
    meta: {
      family: `rg:${episode.task}-hard`,
      horizon: 1,
      origin: `reasoning-gym@49b07130 ${episode.module}`,
      params: { task: episode.task, category: episode.category, index: episode.index, seed: episode.seed },
      curated: true,
    },
  };
}
