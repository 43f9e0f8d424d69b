/**
 * An RLVE task as an environment program: a short Python program (SPADE's interface) that
 * imports the task's environment from RLVE's Gym, unchanged, on the sandbox's Python path.
 *
 *  - generated task (environment, difficulty, seed): reset(seed) makes the problem as RLVE
 *    does, a fresh ParameterController updated `difficulty` times, one entry of
 *    get_parameter_list() chosen with random.Random(seed), then generator(seed, parameter);
 *    the observation is prompt_generator();
 *  - restored task (RLVE's evaluation files): set_config() with the file's seed, parameter and
 *    threshold (how RLVE scores an answer to a recorded problem), the file's prompt as given.
 * step(reply) passes the reply's last \boxed{...} answer to RLVE's verifier() inside RLVE's
 * answer markers (`<answer>...</answer>`): the episode is won (reward 1) when RLVE's score
 * reaches the task's passing_reward_threshold, and lost (reward 0) otherwise; RLVE's own score
 * is in the step's info. solution() is RLVE's reference answer, present only when RLVE gives
 * one (construction problems have none: such a task is `unproven`).
 */
import type { EnvironmentProgram } from '../../core/concepts/environment.js';
import { RLVE_COMMIT } from './gym.js';
import type { RlveEnvironment } from './catalog.js';

/** Python's literal of a string (JSON's string escapes are Python's too). */
const py = (value: string): string => JSON.stringify(value);

/** What every RLVE task program shares: importing the Gym, RLVE's answer markers, scoring. */
const COMMON = String.raw`import copy
import importlib
import json
import random
import sys
import types

import numpy

ANSWER_MARKERS = ('<answer>', '</answer>')  # RLVE's default answer markers


def _inline_timeout(seconds):
    """RLVE's timeout() runs a call in a thread: the sandbox starts none, and limits each call's time itself."""
    def decorate(function):
        return function
    return decorate


def _rlve_module(name):
    """A module of RLVE's Gym (on the sandbox's Python path). Gym.environments and
    Gym.parameter_controllers are entered without running their __init__.py, which imports
    all 400 environments."""
    if name not in sys.modules:
        gym = importlib.import_module('Gym')
        for package in ('Gym.environments', 'Gym.parameter_controllers'):
            if package not in sys.modules:
                module = types.ModuleType(package)
                module.__path__ = [folder + '/' + package.split('.')[1] for folder in gym.__path__]
                module.__package__ = package
                sys.modules[package] = module
        importlib.import_module('Gym.environment').timeout = _inline_timeout
    return importlib.import_module(name)


def _last_boxed(text):
    """The content of the reply's last \\boxed{...} (braces balanced), or None."""
    at = text.rfind('\\boxed{')
    if at < 0:
        return None
    depth = 0
    for i in range(at + 6, len(text)):
        if text[i] == '{':
            depth += 1
        elif text[i] == '}':
            depth -= 1
            if depth == 0:
                return text[at + 7:i]
    return None


def _step(problem, action):
    """RLVE's verifier() on the reply's \\boxed{} answer, in RLVE's answer markers."""
    reply = str(action)
    answer = _last_boxed(reply)
    output = ANSWER_MARKERS[0] + answer + ANSWER_MARKERS[1] if answer is not None else reply
    result = problem.verifier(output)
    won = bool(result['accuracy'])
    info = {'rlve_reward': float(result['reward']), 'passing_reward_threshold': float(problem.passing_reward_threshold)}
    return ('Correct.' if won else 'Not correct.'), (1.0 if won else 0.0), True, False, info
`;

function header(lines: string[]): string {
  return `r"""\n${lines.join('\n')}\nRLVE (github.com/Zhiyuan-Zeng/RLVE, commit ${RLVE_COMMIT.slice(0, 8)}) is MIT-licensed.\n"""\n`;
}

const packagesLine = (environment: RlveEnvironment): string =>
  `Third-party packages its code uses: ${environment.packages.join(', ')}.`;

/** The program of RLVE's `environment` at `difficulty`; `taskSeed` is the seed its task is judged with. */
export function generatedTaskSource(environment: RlveEnvironment, difficulty: number, taskSeed: number): string {
  return `${header([
    `RLVE environment ${environment.id} at difficulty ${difficulty}: reset(seed) makes the problem as RLVE does (a fresh`,
    `ParameterController updated ${difficulty} times, one entry of get_parameter_list() chosen with random.Random(seed),`,
    'then generator(seed, parameter)); step() scores the \\boxed{} answer with RLVE\'s verifier().',
    packagesLine(environment),
  ])}${COMMON}

ENVIRONMENT = ${py(environment.id)}
DIFFICULTY = ${difficulty}
TASK_SEED = ${taskSeed}
ENVIRONMENT_CLASS = (${py(environment.module)}, ${py(environment.className)})
CONTROLLER_CLASS = (${py(environment.controllerModule)}, ${py(environment.controllerClassName)})


def _parameter(seed):
    controller = getattr(_rlve_module(CONTROLLER_CLASS[0]), CONTROLLER_CLASS[1])()
    for _ in range(DIFFICULTY):
        controller.update()
    return random.Random(seed).choice(controller.get_parameter_list())


def _generate(seed):
    """RLVE's generator(seed, parameter), but for its timeout thread and its write to os.environ,
    which the sandbox allows neither of: it seeds the random module the environment's code uses
    and numpy's global generator (torch has nothing to seed), then generates."""
    cls = getattr(_rlve_module(ENVIRONMENT_CLASS[0]), ENVIRONMENT_CLASS[1])
    problem = cls()
    problem.seed = seed
    problem.parameter = copy.deepcopy(_parameter(seed))
    seeded = {id(random)}
    random.seed(seed)
    for klass in cls.__mro__:
        generator = getattr(sys.modules.get(klass.__module__), 'random', None)
        if isinstance(generator, types.ModuleType) and id(generator) not in seeded:
            seeded.add(id(generator))
            generator.seed(seed)
    numpy.random.seed(seed)
    try:
        problem._generate()
    except Exception as error:
        raise RuntimeError(f'RLVE could not generate {ENVIRONMENT} at difficulty {DIFFICULTY} with seed {seed}: {error!r}') from None
    if problem.parameter is None:
        raise RuntimeError(f'RLVE could not generate {ENVIRONMENT} at difficulty {DIFFICULTY} with seed {seed}')
    return problem


class RLVETaskEnv:
    def __init__(self):
        self.problem = None
        # Whether RLVE gives a reference answer (construction problems have none) is known only
        # once the problem is made: it is made now, for the task's seed.
        if 'reference_answer' in _generate(TASK_SEED).parameter:
            self.solution = self._reference_answer

    def reset(self, seed=None):
        self.problem = _generate(TASK_SEED if seed is None else seed)
        return self.problem.prompt_generator(), {'environment': ENVIRONMENT, 'difficulty': DIFFICULTY}

    def step(self, action):
        if self.problem is None:
            return 'Call reset() first.', 0.0, True, False, {}
        return _step(self.problem, action)

    def _reference_answer(self):
        return str(self.problem.parameter['reference_answer'])
`;
}

/** One task of an RLVE evaluation file: `{user_prompt, metadata}`, metadata holding environment and config. */
export interface RecordedTask {
  environment: RlveEnvironment;
  prompt: string;
  config: { seed: number; parameter: Record<string, unknown>; passing_reward_threshold?: number };
}

/** The program of a recorded task: its problem restored with set_config(), its prompt as given. */
export function recordedTaskSource(task: RecordedTask): string {
  const hasReference = Object.hasOwn(task.config.parameter, 'reference_answer');
  return `${header([
    `A recorded task of RLVE environment ${task.environment.id}: reset() restores its problem with RLVE's`,
    'set_config() (seed, parameter, threshold as recorded) and gives the prompt as recorded; step() scores',
    `the \\boxed{} answer with RLVE's verifier().${hasReference ? '' : ' RLVE recorded no reference answer.'}`,
    packagesLine(task.environment),
  ])}${COMMON}

ENVIRONMENT = ${py(task.environment.id)}
ENVIRONMENT_CLASS = (${py(task.environment.module)}, ${py(task.environment.className)})
CONFIG = json.loads(${py(JSON.stringify(task.config))})
PROMPT = ${py(task.prompt)}


class RLVETaskEnv:
    def __init__(self):
        self.problem = None

    def reset(self, seed=None):
        self.problem = getattr(_rlve_module(ENVIRONMENT_CLASS[0]), ENVIRONMENT_CLASS[1])()
        self.problem.set_config(copy.deepcopy(CONFIG))
        return PROMPT, {'environment': ENVIRONMENT}

    def step(self, action):
        if self.problem is None:
            return 'Call reset() first.', 0.0, True, False, {}
        return _step(self.problem, action)
${hasReference ? `
    def solution(self):
        return str(CONFIG['parameter']['reference_answer'])
` : ''}`;
}

/** An RLVE task as an environment program of the run. */
export function rlveProgram(id: string, source: string, environment: RlveEnvironment, gymRoot: string, extra: { difficulty?: number; origin: string; params: Record<string, unknown> }): EnvironmentProgram {
  return {
    id,
    language: 'python',
    source,
    pythonPath: [gymRoot],
    meta: {
      family: environment.id,
      ...(extra.difficulty !== undefined ? { difficulty: extra.difficulty } : {}),
      horizon: 1,
      origin: extra.origin,
      params: extra.params,
      // Written by RLVE's authors, not by the designer under test: the gate proves each task
      // verifiable, but does not hold against it what only judges a designer.
      curated: true,
    },
  };
}
