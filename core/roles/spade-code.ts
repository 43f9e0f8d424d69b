/**
 * SPADE's own code, run to build what SPADE sends its models: under `--designer-protocol spade`
 * the designer's, hint writer's and validator's messages and sampling, the memory's few-shot
 * selection, and the player's first-turn template are what SPADE's Python code builds for the
 * same inputs, never text copied into spade-bench.
 *
 * How: the run reads SPADE's source files at its pinned commit (each checked by its git blob
 * id; the composition root passes them in, see benchmarks/games/spade-source.ts) and hands them
 * to a small Python driver (DRIVER below, run with Debian's python3) on stdin. The driver serves
 * the files to Python's import system from memory, imports SPADE's light modules as they are
 * (the prompt templates, the hint generator, the validator, the environment memory, the corpus
 * loader), and takes the few orchestrator methods it needs (`_generate_single_game_async`,
 * `_augment_prompt_with_memory`, `_apply_game_template`) out of orchestrator.py with Python's
 * ast, so the heavy imports of that module (numpy, the model adapters) never load. Each method
 * is then called as SPADE calls it, on a stand-in whose model raises at the moment SPADE asks
 * it for a reply: the messages and sampling arguments of that call are the answer. SPADE's
 * module-level `random` (which picks examples, domains and task types) is seeded per request,
 * and so is the memory's own generator, so a run is repeatable.
 *
 * Why run the code rather than read its strings: the prompts are built by code (implicit
 * concatenation, f-strings, `.replace()` of placeholders, random choices, a dispatch on the game
 * type and an environment variable); running it gives SPADE's text exactly, whatever shape its
 * source has, and a changed source fails its blob check rather than drifting silently.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { SpadeMemoryRecord } from '../types.js';

/** SPADE's source files, by their path in its repository (checked by the caller). */
export type SpadeSourceFiles = Readonly<Record<string, string>>;

/** Reads SPADE's source files (pinned and checked) when first needed. */
export type SpadeSourceReader = () => Promise<SpadeSourceFiles>;

/** The files the driver needs, by path (the reader must provide each). */
export const SPADE_CODE_FILES = [
  'spade/core/orchestrator.py',
  'spade/core/corpus_orchestrator.py',
  'spade/core/prompts/__init__.py',
  'spade/core/prompts/template.py',
  'spade/core/prompts/tool_use_template.py',
  'spade/core/prompts/corpus_template.py',
  'spade/core/game_generator.py',
  'spade/core/hint_generator.py',
  'spade/core/env_validator.py',
  'spade/core/env_memory.py',
  'spade/core/corpus.py',
  'spade/core/utils/game_files.py',
] as const;

export type { SpadeMemoryRecord };

/** SPADE's sampling of one model call, as its code passes it (absent keys are not passed). */
export interface SpadeSampling {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  max_tokens?: number;
}

export interface SpadeDesignRequest {
  op: 'design';
  gameType: 'cognitive' | 'tool_use';
  skill: string;
  difficulty: string;
  /** SPADE's env_generation_template. */
  template: string;
  /** One corpus document as its JSON line (SPADE's loader reads it); absent: no corpus. */
  documentLine?: string;
  /** SPADE's corpus_max_doc_tokens (words). */
  maxDocWords: number;
  maxTurns: number;
  /** SpadeConfig's env_* sampling. */
  sampling: { temperature: number; top_p: number; top_k: number; max_tokens: number };
  rolloutId: number;
  index: number;
  /** Seeds SPADE's module-level random (examples, domain, task type). */
  promptSeed: number;
  /** The memory (absent or empty: none), and the seed of its generator. */
  memory?: SpadeMemoryRecord[];
  memorySeed?: number;
}

export interface SpadeHintRequest {
  op: 'hint';
  gameType: 'cognitive' | 'tool_use';
  code: string;
  temperature: number;
  maxTokens: number;
}

export interface SpadeValidatorRequest {
  op: 'validator';
  gameType: 'cognitive' | 'tool_use';
  code: string;
  temperature: number;
  maxTokens: number;
}

export interface SpadeMemoryRecordRequest {
  op: 'memory-record';
  code: string;
  rolloutId: number;
  index: number;
  skill: string;
  winRate: number;
  regret: number;
}

export interface SpadeMemorySelectRequest {
  op: 'memory-select';
  memory: SpadeMemoryRecord[];
  seed: number;
  skill: string;
  /** Seeds wanted (SPADE asks for 2) and negatives (1). */
  seeds: number;
  negatives: number;
}

export interface SpadePlayerTemplateRequest {
  op: 'player-template';
}

export type SpadeCodeRequest = SpadeDesignRequest | SpadeHintRequest | SpadeValidatorRequest | SpadeMemoryRecordRequest | SpadeMemorySelectRequest | SpadePlayerTemplateRequest;

export interface SpadeMessages {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  sampling: SpadeSampling;
  /** The chat-template arguments SPADE's code passes with the prompt (null: none). */
  chatTemplateKwargs?: Record<string, unknown> | null;
  /** The document the prompt carries, as SPADE's loader cut it. */
  document?: string;
}

export interface SpadeMemorySelection {
  seeds: SpadeMemoryRecord[];
  negatives: SpadeMemoryRecord[];
}

type Answer<R> = R extends SpadeDesignRequest | SpadeHintRequest | SpadeValidatorRequest
  ? SpadeMessages
  : R extends SpadeMemoryRecordRequest
    ? SpadeMemoryRecord
    : R extends SpadeMemorySelectRequest
      ? SpadeMemorySelection
      : { before: string; after: string };

/** The interpreter: Debian's python3 when there, else the first python3 on PATH. */
export function spadePython(): string {
  return process.env.SPADE_BENCH_SPADE_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
}

/**
 * Runs SPADE's code on each request, in one Python process; the answers in order. A request
 * SPADE's code cannot answer (an unknown skill, say) is an Error naming it.
 */
export async function runSpadeCode<R extends SpadeCodeRequest>(files: SpadeSourceFiles, requests: readonly R[]): Promise<Answer<R>[]> {
  if (requests.length === 0) return [];
  for (const file of SPADE_CODE_FILES) if (files[file] === undefined) throw new Error(`SPADE's ${file} was not given to the driver`);
  const python = spadePython();
  const input = JSON.stringify({ files, requests });
  const output = await new Promise<string>((resolve, reject) => {
    // -I: isolated (no user site, no PYTHONPATH, no current folder on the path); -S: no site packages needed.
    const child = spawn(python, ['-I', '-S', '-c', DRIVER], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONIOENCODING: 'utf-8', PYTHONHASHSEED: '0' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new UsageError(`SPADE's protocol runs SPADE's own prompt code with Python 3 (${python}), which was not found; install python3 or set SPADE_BENCH_SPADE_PYTHON`) : error),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`SPADE's prompt code failed (python exit ${code}): ${Buffer.concat(err).toString('utf8').trim().split('\n').slice(-6).join('\n')}`));
    });
    child.stdin.on('error', () => {}); // a child that exits early is reported by 'close'
    child.stdin.end(input);
  });
  const answers = (JSON.parse(output) as { results: ({ error: string } | Answer<R>)[] }).results;
  return answers.map((a, i) => {
    if (a && typeof a === 'object' && 'error' in a) throw new Error(`SPADE's code on a ${requests[i]!.op} request: ${a.error}`);
    return a as Answer<R>;
  });
}

/** The driver (see the module's comment). Reads {files, requests} on stdin, writes {results}. */
const DRIVER = String.raw`
import ast, asyncio, importlib.abc, importlib.util, json, logging, os, random, shutil, sys, tempfile
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace

logging.disable(logging.CRITICAL)
payload = json.loads(sys.stdin.buffer.read().decode('utf-8'))
FILES = payload['files']
# Modules SPADE's light modules import but that are not needed to build prompts.
STUBS = {'spade.core.openrouter_adapter': 'class OpenAIModelAdapter:\n    pass\n'}


class Source(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in ('spade', 'spade.core', 'spade.core.utils'):
            return importlib.util.spec_from_loader(name, self, is_package=True)
        if name in STUBS:
            return importlib.util.spec_from_loader(name, self)
        if not name.startswith('spade.'):
            return None
        rel = name.replace('.', '/')
        if rel + '/__init__.py' in FILES:
            return importlib.util.spec_from_loader(name, self, origin=rel + '/__init__.py', is_package=True)
        if rel + '.py' in FILES:
            return importlib.util.spec_from_loader(name, self, origin=rel + '.py')
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        if name in ('spade', 'spade.core', 'spade.core.utils'):
            return
        if name in STUBS:
            exec(STUBS[name], module.__dict__)
            return
        origin = module.__spec__.origin
        module.__file__ = origin
        exec(compile(FILES[origin], origin, 'exec'), module.__dict__)


sys.meta_path.insert(0, Source())

import spade.core.prompts.template as T
import spade.core.prompts.tool_use_template as TU
import spade.core.prompts.corpus_template as CT
from spade.core.game_generator import SyntheticGameGenerator
from spade.core.hint_generator import HintGenerator
from spade.core.env_validator import EnvironmentValidator
from spade.core.env_memory import EnvironmentMemory, EnvironmentRecord
from spade.core.corpus import CorpusLoader


def bare(fn):
    # Annotations name classes of the heavy imports: they are dropped, the code is kept.
    args = fn.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        a.annotation = None
    if args.vararg:
        args.vararg.annotation = None
    if args.kwarg:
        args.kwarg.annotation = None
    fn.returns = None
    return fn


def functions(path, names, owner=None, extra=None):
    tree = ast.parse(FILES[path])
    body = tree.body
    if owner is not None:
        body = next(n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner)
    found = {n.name: bare(n) for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in names}
    missing = [n for n in names if n not in found]
    if missing:
        raise RuntimeError('%s has no %s (is it SPADE at its pinned commit?)' % (path, ', '.join(missing)))
    ns = {}
    for m in (T, TU, CT):
        ns.update({k: v for k, v in vars(m).items() if not k.startswith('__')})
    ns.update(asyncio=asyncio, os=os, shutil=shutil, logging=logging, logger=logging.getLogger('spade'), Path=Path,
              SyntheticGameGenerator=SyntheticGameGenerator)
    ns.update(extra or {})
    exec(compile(ast.Module(body=[found[n] for n in names], type_ignores=[]), path, 'exec'), ns)
    return {n: ns[n] for n in names}


ORCH = 'spade/core/orchestrator.py'
BASE = functions(ORCH, ['_apply_game_template', '_augment_prompt_with_memory', '_generate_single_game_async'], 'SpadeOrchestrator')
CORPUS = functions('spade/core/corpus_orchestrator.py', ['_generate_single_game_async'], 'CorpusGroundedOrchestrator')
SAVE = functions('spade/core/utils/game_files.py', ['save_game_file'])['save_game_file']


class Asked(BaseException):
    # Raised where SPADE awaits the model: not an Exception, so SPADE's retry loops let it through.
    def __init__(self, kwargs):
        self.kwargs = kwargs


class Model:
    def __init__(self):
        self.template_kwargs = None

    def apply_template(self, messages, chat_template_kwargs_override=None, **_):
        self.template_kwargs = chat_template_kwargs_override
        return []

    def generate_async(self, **kwargs):
        raise Asked(kwargs)


def asked(coroutine):
    try:
        asyncio.run(coroutine)
    except Asked as a:
        return a.kwargs
    raise RuntimeError('SPADE\'s code returned without asking its model')


def sampling(kwargs):
    return {k: kwargs[k] for k in ('temperature', 'top_p', 'top_k', 'max_tokens') if kwargs.get(k) is not None}


def messages(kwargs):
    return [{'role': m['role'], 'content': m['content']} for m in kwargs['messages']]


def memory_of(records, seed):
    memory = EnvironmentMemory(max_size=max(200, len(records)), seed=seed)
    memory.records = [EnvironmentRecord(**r) for r in records]
    return memory


def design(req):
    os.environ['SPADE_MULTITURN_ENV_GEN'] = '1'
    random.seed(req['promptSeed'])
    model = Model()
    s = req['sampling']
    config = SimpleNamespace(
        game_type=req['gameType'], env_generation_template=req['template'], max_turns=req['maxTurns'],
        env_temperature=s['temperature'], env_top_p=s['top_p'], env_top_k=s['top_k'], env_max_tokens=s['max_tokens'],
        env_repair_turns=0, persist_rejected=False,
    )
    document = None
    methods = dict(BASE)
    if req.get('documentLine') is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'corpus.jsonl'
            path.write_text(req['documentLine'] + '\n', encoding='utf-8')
            loader = CorpusLoader(str(path), max_doc_tokens=req['maxDocWords'], seed=0)
            if loader.load() != 1:
                raise RuntimeError('SPADE\'s corpus loader reads no document from this line')
        document = loader.documents[0]
        methods['_generate_single_game_async'] = CORPUS['_generate_single_game_async']
    Orchestrator = type('Orchestrator', (), methods)
    self = Orchestrator()
    self.config = config
    self.model = model
    self._env_template_kwargs = None
    self.env_validator = None
    self.env_memory = memory_of(req['memory'], req.get('memorySeed')) if req.get('memory') else None
    self.corpus = SimpleNamespace(sample=lambda n=1: [document] * n)
    with tempfile.TemporaryDirectory() as games:
        kwargs = asked(self._generate_single_game_async(req['skill'], req['difficulty'], Path(games), req['rolloutId'], req['index'], False, None))
    out = {'messages': messages(kwargs), 'sampling': sampling(kwargs), 'chatTemplateKwargs': model.template_kwargs}
    if document is not None:
        out['document'] = document.text
    return out


def hint(req):
    writer = HintGenerator(model_adapter=Model(), temperature=req['temperature'], max_tokens=req['maxTokens'], game_type=req['gameType'])
    kwargs = asked(writer.generate_hint_async(req['code']))
    return {'messages': messages(kwargs), 'sampling': sampling(kwargs)}


def validator(req):
    v = EnvironmentValidator(model_adapter=Model(), temperature=req['temperature'], max_tokens=req['maxTokens'], game_type=req['gameType'])
    kwargs = asked(v.validate_async(req['code']))
    return {'messages': messages(kwargs), 'sampling': sampling(kwargs)}


def memory_record(req):
    # The game file as SPADE saves it, then the record SPADE's memory keeps of it.
    with tempfile.TemporaryDirectory() as games:
        game_file = SAVE(req['code'], Path(games), req['rolloutId'], req['index'], req['skill'])
        text = game_file.read_text()
        memory = EnvironmentMemory()
        memory.add(game_file=game_file.name, skill=req['skill'], game_code=text, actor_win_rate=req['winRate'],
                   regret=req['regret'], rollout_id=req['rolloutId'])
    return asdict(memory.records[0])


def memory_select(req):
    memory = memory_of(req['memory'], req['seed'])
    seeds = memory.high_regret_seeds(n=req['seeds'], skill=req['skill'])
    negatives = memory.low_quality_examples(n=req['negatives'], skill=req['skill'])
    return {'seeds': [asdict(r) for r in seeds], 'negatives': [asdict(r) for r in negatives]}


def player_template(req):
    mark = '\u0000OBSERVATION\u0000'
    content = BASE['_apply_game_template'](SimpleNamespace(), [{'role': 'user', 'content': mark}], 'qwen3_game')[0]['content']
    before, after = content.split(mark)
    return {'before': before, 'after': after}


OPS = {'design': design, 'hint': hint, 'validator': validator, 'memory-record': memory_record,
       'memory-select': memory_select, 'player-template': player_template}
results = []
for req in payload['requests']:
    try:
        results.append(OPS[req['op']](req))
    except Exception as e:
        results.append({'error': '%s: %s' % (type(e).__name__, e)})
sys.stdout.write(json.dumps({'results': results}))
`;

/** SPADE's code over sources read once, when first needed. */
export interface SpadeCode {
  run<R extends SpadeCodeRequest>(requests: readonly R[]): Promise<Answer<R>[]>;
}

export function createSpadeCode(read: SpadeSourceReader): SpadeCode {
  let files: Promise<SpadeSourceFiles> | undefined;
  return {
    run(requests) {
      files ??= read();
      files.catch(() => (files = undefined));
      return files.then((f) => runSpadeCode(f, requests));
    },
  };
}
