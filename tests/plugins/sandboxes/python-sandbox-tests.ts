/**
 * The tests every Python sandbox must pass (pyodide and cpython run the same ones): SPADE-format
 * programs load and play, seeding and the fixed clock, math_verify, limits, and the whole hostile
 * corpus, each followed by a good program that must still work. Where a sandbox differs on
 * purpose, the corpus file says so (`# expect under SANDBOX:`), with the reason.
 *
 * Containment is checked from the host as well as from results: a fake key in the host's
 * environment never comes back, no file appears in the host's home, working folder, dataset
 * cache, /tmp or /dev/shm, a listener on 127.0.0.1 gets no connection, and once the sandbox is
 * closed no process is left in any PID namespace it made.
 */
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SandboxError } from '../../../core/types.js';
import type { LoadedEnvironment, Sandbox, SandboxLimits } from '../../../core/types.js';
import { hostileExpectations, hostileSource, type HostileExpectation } from '../../fixtures/python/hostile.js';
import { nestedNamespaces, processesIn, strayProcesses } from '../../helpers/processes.js';

export const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/python');
export const ESCAPE_PROOF = '/tmp/spade-bench-escape-proof';
export const SECRET = 'sk-fake-secret-5b1c0d7e';
const MARKER = 'spade-hostile-write-marker';
export const LIMITS: Partial<SandboxLimits> = { callTimeoutMs: 600, memoryMb: 48, maxOutputBytes: 32 * 1024 };
/** Host folders a program must not write to (the test checks each for the marker afterwards). */
export const HOST_FOLDERS = [os.homedir(), process.cwd(), path.join(os.homedir(), '.cache', 'spade-bench'), path.resolve(process.cwd(), '../shared/datasets')];

export function source(name: string): string {
  return readFileSync(path.join(fixtures, name), 'utf8');
}

export async function failureOf(promise: Promise<unknown>): Promise<SandboxError | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    return error;
  }
}

export interface PythonSandboxSuite {
  /** The sandbox under test, made before the first test (the fake key is then in the environment). */
  sandbox(): Sandbox;
  /** The port of the listener on 127.0.0.1 that hostile programs try to reach. */
  listenerPort(): number;
  /** Register the last checks (no host file, no connection, no process left once closed): after the file's own tests. */
  finish(): void;
  /** Note the PID namespaces the sandbox's processes are in now (checked empty once it is closed). */
  remember(): void;
}

/**
 * Register the shared tests on `test` for the sandbox that `create` makes. The sandbox is made
 * before the first test (after the fake key is set); `finish()` registers the final checks,
 * which close it.
 */
export function definePythonSandboxTests(test: Test, sandboxId: 'pyodide' | 'cpython', create: (limits: Partial<SandboxLimits>) => Sandbox): PythonSandboxSuite {
  let sandbox!: Sandbox;
  let listener!: Server;
  let connections = 0;
  const namespaces = new Set<string>();
  const remember = (): void => nestedNamespaces().forEach((ns) => namespaces.add(ns));

  test.before(async () => {
    process.env.SPADE_BENCH_FAKE_SECRET = SECRET;
    rmSync(ESCAPE_PROOF, { force: true });
    for (const folder of [...HOST_FOLDERS, '/tmp', '/dev/shm']) rmSync(path.join(folder, MARKER), { force: true });
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    sandbox = create(LIMITS);
  });

  let closed = false;
  test.after(async () => {
    if (!closed) await sandbox.close();
    listener.close();
  });

  const listenerPort = (): number => (listener.address() as { port: number }).port;
  const load = (name: string, text = source(name)): Promise<LoadedEnvironment> => sandbox.load({ id: name, language: 'python', source: text });

  /** A well-behaved environment still loads and wins after whatever ran before it. */
  async function assertNextEnvironmentWorks(after: string): Promise<void> {
    const env = await load('word_sort.py');
    await env.reset(11);
    const answer = await env.solution();
    const result = await env.step(answer);
    assert.is(result.reward, 1, `a good environment failed after ${after}`);
    await env.dispose();
  }

  test('a multi-turn environment that forgets to import random loads, and its reference policy wins', async () => {
    const env = await load('guess_number.py');
    assert.equal(env.capabilities, { solution: false, hint: true, referenceAction: true, tools: false, maxTurns: 10 });
    let { observation } = await env.reset(42);
    assert.match(observation, /between 1 and 100/);
    let won = false;
    for (let turn = 0; turn < 10 && !won; turn++) {
      const result = await env.step(await env.referenceAction(observation));
      observation = result.observation;
      won = result.terminated && result.reward === 1;
    }
    assert.ok(won, 'binary search should find the number within 10 turns');
    assert.match(await env.hint(), /The number is (even|odd)/);
    await env.dispose();
  });

  test('the same seed gives the same episode; another seed another one', async () => {
    const first = await load('guess_number.py');
    const second = await load('guess_number.py');
    await first.reset(7);
    await second.reset(7);
    const a = await first.step('\\boxed{50}');
    const b = await second.step('\\boxed{50}');
    assert.equal(a, b);
    const texts = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5]) {
      await first.reset(seed);
      texts.add((await first.step('\\boxed{50}')).observation);
    }
    assert.ok(texts.size > 1, 'different seeds should give different secrets');
    await first.dispose();
    await second.dispose();
  });

  test('an environment importing math_verify checks equivalent answers', async () => {
    const env = await load('fraction_sum.py');
    const { observation } = await env.reset(3);
    assert.match(observation, /^Compute \d+\/\d+ \+ \d+\/\d+ \+ \d+\/\d+/);
    const solution = await env.solution();
    assert.match(solution, /\\boxed\{/);
    assert.is((await env.step(solution)).reward, 1);
    await env.reset(3);
    assert.is((await env.step('I think it is \\boxed{0}')).reward, 0);
    // The same value written as a decimal is accepted (math_verify's numeric equivalence).
    const fraction = /\\frac\{(\d+)\}\{(\d+)\}/.exec(solution);
    if (fraction) {
      await env.reset(3);
      const decimal = (Number(fraction[1]) / Number(fraction[2])).toPrecision(12);
      assert.is((await env.step(`\\boxed{${decimal}}`)).reward, 1);
    }
    await env.dispose();
  });

  test('typing names and collections are injected; hint() is privileged text', async () => {
    const env = await load('word_sort.py');
    const { observation, info } = await env.reset(5);
    assert.match(observation, /Sort these words/);
    assert.type(info.letters, 'number');
    assert.match(await env.hint(), /^The first word is [a-z]+$/);
    assert.is((await env.step('\\boxed{zebra}')).reward, 0);
    const fraction = await load('fraction_sum.py');
    const missing = await failureOf(fraction.hint());
    assert.is(missing?.kind, 'missing-method');
    await env.dispose();
    await fraction.dispose();
  });

  test('time is fixed and calls past maxCalls fail with call-limit', async () => {
    const text = 'import time\nclass ProbeEnv:\n  def reset(self, seed=None): return str(time.time()), {}\n  def step(self, a): return "o", 0.0, False, False, {}\n';
    const env = await sandbox.load({ id: 'clock', language: 'python', source: text }, { maxCalls: 2 });
    const first = await env.reset(1);
    const second = await env.reset(1);
    assert.is(first.observation, second.observation);
    assert.is((await failureOf(env.step('x')))?.kind, 'call-limit');
    await env.dispose();
  });

  test('datetime reads the same fixed moment as time, and a program cannot change it for the next one', async () => {
    const clock = [
      'import datetime',
      'from datetime import date, timezone',
      'class ProbeEnv:',
      '  def reset(self, seed=None):',
      '    now = datetime.datetime.now()',
      '    text = "|".join([str(now), str(date.today()), datetime.datetime.now(timezone.utc).isoformat(), str(datetime.datetime.utcnow()), str(now - datetime.timedelta(days=1))])',
      '    datetime.datetime = None',
      '    return text, {}',
      '  def step(self, a): return "o", 0.0, True, False, {}',
    ].join('\n');
    for (const id of ['clock-1', 'clock-2']) {
      const env = await sandbox.load({ id, language: 'python', source: clock });
      assert.is((await env.reset(1)).observation, '2023-11-14 22:13:20|2023-11-14|2023-11-14T22:13:20+00:00|2023-11-14 22:13:20|2023-11-13 22:13:20', id);
      await env.dispose();
    }
  });

  const hostile = hostileExpectations(sandboxId);

  async function provoke(expectation: HostileExpectation): Promise<{ error: SandboxError | undefined; observation?: string }> {
    const text = hostileSource(expectation.file, { listenerPort: listenerPort(), hostFolders: HOST_FOLDERS });
    let env: LoadedEnvironment;
    try {
      env = await load(expectation.file, text);
    } catch (error) {
      if (error instanceof SandboxError) return { error };
      throw error;
    }
    if (expectation.at === 'load') {
      await env.dispose();
      return { error: undefined };
    }
    let observation: string;
    try {
      observation = (await env.reset(1)).observation;
      if (expectation.at === 'step') await env.step('\\boxed{1}');
      if (expectation.at === 'step:test') {
        await env.step('1');
        await env.step('2');
        await env.step('test');
      }
    } catch (error) {
      if (error instanceof SandboxError) return { error };
      throw error;
    } finally {
      remember();
      await env.dispose();
    }
    return { error: undefined, observation };
  }

  test('the hostile corpus has at least 30 programs', () => {
    assert.ok(hostile.length >= 30, `only ${hostile.length} hostile programs`);
  });

  for (const expectation of hostile) {
    test(`hostile ${expectation.file}: ${expectation.kind} at ${expectation.at}, and the next environment works`, async () => {
      const { error, observation } = await provoke(expectation);
      if (expectation.kind === 'ok') assert.is(error, undefined, `unexpected ${error?.kind}: ${error?.message}`);
      else if (expectation.kind !== 'any') assert.is(error?.kind, expectation.kind, error ? `${error.kind}: ${error.message}` : 'no failure');
      for (const text of [observation, error?.message]) {
        if (text === undefined) continue;
        assert.not.ok(text.includes(SECRET), 'the host secret is visible inside');
        assert.not.ok(text.includes('root:'), 'a host file was read');
      }
      assert.equal(strayProcesses(), [], 'a process the program started outlived its call');
      await assertNextEnvironmentWorks(expectation.file);
    });
  }

  test('/tmp is each environment\'s own: not seen beside it, nor by a later load of the same program', async () => {
    const writer = 'import os\nclass MarkEnv:\n  def reset(self, seed=None):\n    seen = os.path.exists("/tmp/mark")\n    open("/tmp/mark", "w").write("x")\n    return f"seen {seen}", {}\n  def step(self, a):\n    return f"still {os.path.exists(\'/tmp/mark\')}", 0.0, False, False, {}\n';
    // Where the pyodide sandbox keeps the /tmp of the environments whose turn it is not: out of sight.
    const prober = 'import os\nclass ProbeEnv:\n  def reset(self, seed=None):\n    try:\n      return "found " + ",".join(os.listdir("/spade-tmp")), {}\n    except OSError as e:\n      return type(e).__name__, {}\n  def step(self, a):\n    return "ok", 0.0, False, False, {}\n';
    const first = await sandbox.load({ id: 'mark', language: 'python', source: writer });
    assert.is((await first.reset(1)).observation, 'seen False');
    const beside = await sandbox.load({ id: 'mark-beside', language: 'python', source: writer });
    assert.is((await beside.reset(1)).observation, 'seen False', 'an environment saw the file of the one beside it');
    assert.is((await first.step('x')).observation, 'still True', 'an environment lost its own file');
    const probe = await sandbox.load({ id: 'probe-store', language: 'python', source: prober });
    assert.is((await probe.reset(1)).observation, 'FileNotFoundError', 'an environment listed the folders kept for the others');
    await probe.dispose();
    await first.dispose();
    await beside.dispose();
    const again = await sandbox.load({ id: 'mark', language: 'python', source: writer });
    assert.is((await again.reset(1)).observation, 'seen False', 'a later load saw its earlier load\'s file');
    await again.dispose();
  });

  test('polluted builtins and shared modules are not seen by the next environment', async () => {
    const polluter = await load('hostile/pollute_builtins.py');
    await polluter.reset(1);
    const probe = 'import math, json\nclass ProbeEnv:\n  def reset(self, seed=None): return f"{len(\'abc\')} {math.pi:.5f} {json.dumps([1])} {sorted([2, 1])}", {}\n  def step(self, a): return "o", 0.0, False, False, {}\n';
    const env = await sandbox.load({ id: 'probe', language: 'python', source: probe });
    assert.is((await env.reset(1)).observation, '3 3.14159 [1] [1, 2]');
    await polluter.dispose();
    await env.dispose();
  });

  // SPADE's loader: what SPADE's own loader does to a program, both Python sandboxes do.
  const spadeFormat = path.join(fixtures, '../spade-format');
  const spadeProgram = (name: string): string => readFileSync(path.join(spadeFormat, name), 'utf8');
  const probe = (body: string, init = ''): string =>
    `class ProbeEnv:\n${init}  def reset(self, seed=None):\n${body.split('\n').map((l) => `    ${l}`).join('\n')}\n  def step(self, a): return "o", 0.0, True, False, {}\n`;

  test("SPADE's loader: the names SPADE's loader injects are there without an import, and no others", async () => {
    const env = await load('names', probe('d = deque([1]); heappush(h := [], 3); c = list(chain([1], accumulate([1, 2])))\nreturn f"{d[0]} {heappop(h)} {c} {reduce(operator.add, [1, 2])} {Optional is not None} {statistics.mean([1, 3])}", {}'));
    assert.is((await env.reset(1)).observation, '1 3 [1, 1, 3] 3 True 2');
    await env.dispose();
    // Fraction, time and os are not among SPADE's names: a program that uses them unimported fails there, and here.
    for (const name of ['Fraction(1, 2)', 'time.time()', 'os.getcwd()']) {
      const missing = await load(`missing-${name}`, probe(`return str(${name}), {}`));
      const failure = await failureOf(missing.reset(1));
      assert.is(failure?.kind, 'crash', name);
      assert.match(failure!.message, /NameError/, name);
      await missing.dispose();
    }
  });

  test("SPADE's loader: the game class is the first whose name ends in Env, other than SPADE's base names", async () => {
    // An abstract base first: it is the one taken (SPADE's reset() then fails).
    const based = await load('base-first', spadeProgram('base_class_first.py'));
    assert.is((await failureOf(based.reset(1)))?.kind, 'crash');
    await based.dispose();
    const none = await failureOf(load('no-env', spadeProgram('no_env_class.py')));
    assert.is(none?.kind, 'load');
    assert.match(none!.message, /No valid game class found in code \(expected class ending with 'Env'\)/);
    // `Env` itself is a base name SPADE skips.
    assert.is((await failureOf(load('bare-env', probe('return "x", {}').replace('ProbeEnv', 'Env'))))?.kind, 'load');
    const helper = await load('helper-first', `def make_thing():\n  return 1\nclass Helper:\n  pass\n${probe('return "chosen", {}')}`);
    assert.is((await helper.reset(1)).observation, 'chosen');
    await helper.dispose();
  });

  test("SPADE's loader: a game is built with its own max_turns capped at the turn budget, or max_turns= the budget when it needs one", async () => {
    const own = probe('return str(self.max_turns), {}', '  def __init__(self, max_turns=30):\n    self.max_turns = max_turns\n');
    for (const [budget, expected] of [[10, '10'], [50, '30']] as const) {
      const env = await sandbox.load({ id: `own-${budget}`, language: 'python', source: own }, undefined, { maxTurns: budget });
      assert.is((await env.reset(1)).observation, expected, `budget ${budget}`);
      await env.dispose();
    }
    const required = await sandbox.load({ id: 'required', language: 'python', source: spadeProgram('max_turns_required.py') }, undefined, { maxTurns: 7 });
    assert.match((await required.reset(3)).observation, /You have 7 turns\./);
    await required.dispose();
  });

  test("SPADE's loader: a bare-string reset() is read as (observation, {})", async () => {
    const env = await load('bare', spadeProgram('bare_string_reset.py'));
    const { observation, info } = await env.reset(5);
    assert.match(observation, /^Unscramble the letters [A-Z]+ into an English word/);
    assert.equal(info, {});
    assert.is((await env.step(`\\boxed{${await env.solution()}}`)).reward, 1);
    await env.dispose();
  });

  test("SPADE's loader: ToolUseBaseEnv is injected and importable; a tool-use game plays its own solution() to a win", async () => {
    const env = await load('tools', spadeProgram('tool_use_inventory.py'));
    await env.reset(8);
    const solution = await env.solution();
    const actions = solution.split('\n');
    assert.is(actions.length, 3);
    let last;
    for (const action of actions) last = await env.step(action);
    assert.equal([last!.observation, last!.reward, last!.terminated], ['Correct!', 1, true]);
    await env.reset(8);
    const lookup = await env.step(actions[0]!);
    assert.match(lookup.observation, /^Tool result:\n\d+$/);
    assert.is((await env.step('no tags here')).reward, -0.1);
    await env.dispose();
    // Imported by module name, and each environment has its own copy: patching it changes only the patcher.
    const patcher = await load('patcher', `from tool_use_base_env import ToolUseBaseEnv as Base\nimport tool_use_base_env\nassert Base is tool_use_base_env.ToolUseBaseEnv is ToolUseBaseEnv\nBase._check_answer = lambda self, answer: True\n${spadeProgram('tool_use_inventory.py').split('\n').slice(1).join('\n')}`);
    await patcher.reset(8);
    assert.is((await patcher.step('<answer>nonsense</answer>')).reward, 1);
    const honest = await load('honest', spadeProgram('tool_use_inventory.py'));
    await honest.reset(8);
    assert.is((await honest.step('<answer>nonsense</answer>')).reward, 0);
    await patcher.dispose();
    await honest.dispose();
  });

  test("SPADE's loader: a tool-use game's tools are read after reset(), its horizon is its own max_turns, and each episode starts afresh", async () => {
    const env = await sandbox.load({ id: 'tools-read', language: 'python', source: spadeProgram('tool_use_inventory.py') }, undefined, { maxTurns: 25 });
    assert.is(env.capabilities.tools, true);
    const first = await env.reset(8);
    // ToolUseBaseEnv's default max_turns (10), within the budget of 25, is the episode's horizon.
    assert.equal(first.info, { max_turns: 10 });
    const tools = await env.getTools!();
    assert.equal(tools.map((t) => t.function.name), ['list_warehouses', 'get_stock']);
    assert.equal(tools[1]!.function.parameters, { type: 'object', properties: { item: { type: 'string' }, warehouse: { type: 'string' } }, required: ['item', 'warehouse'] });
    // Nine format errors leave one turn: the tenth truncates. A new episode has all ten again.
    for (let turn = 1; turn <= 9; turn++) assert.is((await env.step('no tags')).truncated, false);
    assert.match((await env.step('no tags')).observation, /Solution:\n<tool_call>/);
    await env.reset(8);
    assert.is((await env.step('no tags')).truncated, false, 'reset() zeroed the turn count');
    await env.dispose();
    // Capped at a smaller budget; a game's own max_turns counts; a program whose info names its horizon keeps it.
    const capped = await sandbox.load({ id: 'tools-capped', language: 'python', source: spadeProgram('tool_use_inventory.py') }, undefined, { maxTurns: 4 });
    assert.equal((await capped.reset(1)).info, { max_turns: 4 });
    await capped.dispose();
    const own = spadeProgram('tool_use_inventory.py').replace('    def reset(self, seed=None):', '    def __init__(self):\n        super().__init__(max_turns=6)\n\n    def reset(self, seed=None):');
    const sixTurns = await sandbox.load({ id: 'tools-own', language: 'python', source: own }, undefined, { maxTurns: 25 });
    assert.equal((await sixTurns.reset(1)).info, { max_turns: 6 });
    await sixTurns.dispose();
    // Not a tool-use game: no tools, info untouched.
    const plain = await load('plain', spadeProgram('valid_single_answer.py'));
    assert.is(plain.capabilities.tools, false);
    assert.not.ok('max_turns' in (await plain.reset(1)).info);
    await plain.dispose();
  });

  test("SPADE's multi-turn tool-use variant: instructions revealed one by one, a premature done told the pending step, done wins at the end", async () => {
    const env = await load('multi-turn', spadeProgram('tool_use_multi_turn.py'));
    const { observation } = await env.reset(3);
    assert.match(observation, /find their oldest open ticket and make it urgent/);
    const early = await env.step('<answer>done</answer>');
    assert.equal([early.reward, early.terminated], [0, false]);
    assert.match(early.observation, /step 1\/3: "Customer \w+ is waiting/);
    const actions = (await env.solution()).split('\n');
    assert.is(actions.at(-1), '<answer>done</answer>');
    await env.reset(3);
    const seen: string[] = [];
    let last;
    for (const action of actions) {
      last = await env.step(action);
      seen.push(last.observation);
    }
    assert.match(seen[1]!, /\[STEP 1 COMPLETE - NEW INSTRUCTION\] Assign that ticket to ops-\d/);
    assert.match(seen[4]!, /\[ALL STEPS COMPLETE\]/);
    assert.equal([last!.observation, last!.reward, last!.terminated], ['Correct!', 1, true]);
    // The variant whose second criterion can never hold ends its own solution() on the pending step.
    const broken = await load('multi-turn-broken', spadeProgram('tool_use_multi_turn_unreachable.py'));
    await broken.reset(3);
    let end;
    for (const action of (await broken.solution()).split('\n')) end = await broken.step(action);
    assert.equal([end!.reward, end!.terminated], [0, false]);
    assert.match(end!.observation, /step 2\/3: "Assign that ticket/);
    await env.dispose();
    await broken.dispose();
  });

  test("SPADE's own validation (validate_game) gives SPADE's recorded verdict and message on every SPADE-format program", async () => {
    const record = JSON.parse(readFileSync(path.join(spadeFormat, 'spade-verdicts.json'), 'utf8')) as { verdicts: Record<string, { accepted: boolean; reason: string | null }> };
    const names = Object.keys(record.verdicts);
    assert.ok(names.length >= 20, `${names.length} programs`);
    const usesNumpy = (text: string): boolean => /\bnp\b|numpy/.test(text);
    for (const name of names) {
      const text = spadeProgram(name);
      const expected = record.verdicts[name]!;
      let got: { accepted: boolean; message?: string };
      try {
        got = await sandbox.spadeValidate!({ id: name, language: 'python', source: text });
      } catch (error) {
        if (!(error instanceof SandboxError)) throw error;
        got = { accepted: false, message: error.message };
      }
      if (sandboxId === 'pyodide' && usesNumpy(text)) {
        // SPADE runs these with numpy; Pyodide has none, and says so rather than guess.
        assert.not.ok(got.accepted, name);
        assert.match(got.message ?? '', /numpy.*--python-sandbox cpython/, name);
        continue;
      }
      assert.is(got.accepted, expected.accepted, `${name}: ${got.message}`);
      if (expected.reason) assert.is(`Game validation failed: ${got.message}`, expected.reason, name);
    }
  });

  test("SPADE's validation words a syntax error as SPADE does, naming <string>; a missing package is still named", async () => {
    const broken = await sandbox.spadeValidate!({ id: 'broken', language: 'python', source: 'class Game:\n    def reset(self seed=0):\n        return "", {}\n' });
    assert.is(broken.accepted, false);
    assert.is(broken.kind, 'syntax');
    assert.match(broken.message ?? '', /^Syntax error in generated game code: .*\(<string>, line 2\)$/);
    const missing = await sandbox.spadeValidate!({ id: 'missing', language: 'python', source: 'import not_a_package_here\nclass Game:\n    pass\n' }).catch((error: Error) => ({ accepted: false, message: error.message }));
    assert.is(missing.accepted, false);
    assert.match(missing.message ?? '', /not_a_package_here/);
  });

  /** The last checks, from the host; register them after the file's own tests. */
  function finish(): void {
    test('no program reached the host: no file written, no connection made', async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.not.ok(existsSync(ESCAPE_PROOF), `${ESCAPE_PROOF} was written from inside the sandbox`);
      for (const folder of [...HOST_FOLDERS, '/tmp', '/dev/shm']) {
        assert.not.ok(existsSync(path.join(folder, MARKER)), `a program wrote ${path.join(folder, MARKER)} on the host`);
      }
      assert.is(connections, 0, 'a program connected to the listener on 127.0.0.1');
    });

    test('once closed, no process is left in any PID namespace the sandbox made', async () => {
      const env = await load('word_sort.py');
      await env.reset(1);
      remember();
      assert.ok(namespaces.size > 0, 'the sandbox runs in a PID namespace of its own');
      closed = true;
      await sandbox.close();
      // A killed process may take a moment to finish exiting.
      for (let waited = 0; waited < 30_000 && processesIn(namespaces).length > 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(processesIn(namespaces), []);
    });
  }

  return { sandbox: () => sandbox, listenerPort, finish, remember };
}
