/**
 * One environment's state is its own in the cpython sandbox: whatever a program does to its
 * interpreter, its frames, its file descriptors or /tmp, no environment loaded beside it or
 * after it sees any of it. Each test runs the hostile program between or beside innocent ones
 * in one sandbox worker, and compares what the innocent ones see with a run without it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import type { LoadedEnvironment, Sandbox } from '../../../core/types.js';
import { source } from './python-sandbox-tests.js';

const maybe = checkJail().problem ? test.skip : test;
let made: Sandbox[] = [];
const sandbox = (): Sandbox => {
  const created = createCpythonSandbox({ limits: { callTimeoutMs: 3000 } });
  made.push(created);
  return created;
};
const load = (box: Sandbox, id: string, text: string): Promise<LoadedEnvironment> => box.load({ id, language: 'python', source: text });
const probe = (body: string): string =>
  `class ProbeEnv:\n  def reset(self, seed=None):\n${body.split('\n').map((l) => `    ${l}`).join('\n')}\n  def step(self, a):\n    return "o", 0.0, True, False, {}\n`;
const settled = async <T>(call: Promise<T>): Promise<T | Error> => call.catch((error: Error) => error);

test.after.each(async () => {
  await Promise.all(made.map((box) => box.close()));
  made = [];
});

/** An innocent guessing game's episode: reset, two wrong guesses, the right one. */
async function episode(env: LoadedEnvironment, between?: () => Promise<void>): Promise<string[]> {
  const seen = [(await env.reset(3)).observation];
  seen.push((await env.step('\\boxed{50}')).observation);
  await between?.();
  seen.push((await env.step('\\boxed{25}')).observation, (await env.step('\\boxed{75}')).observation);
  return seen;
}

maybe("a program that rewrites its neighbours' step() through sys._getframe reaches none of them", async () => {
  const box = sandbox();
  const expected = await episode(await load(box, 'control', source('guess_number.py')));
  const innocent = await load(box, 'innocent', source('guess_number.py'));
  const seen = await episode(innocent, async () => {
    const tamperer = await load(box, 'tamperer', probe([
      'import sys',
      'frame, found = sys._getframe(), 0',
      'while frame is not None:',
      '  envs = frame.f_globals.get("_environments")',
      '  if isinstance(envs, dict):',
      '    for env in envs.values():',
      '      if env.instance is not None and env.instance is not self:',
      '        env.instance.step = lambda action: ("you won", 1.0, True, False, {})',
      '        found += 1',
      '  frame = frame.f_back',
      'return f"rewrote {found}", {}',
    ].join('\n')));
    assert.is((await tamperer.reset(1)).observation, 'rewrote 0');
    await tamperer.dispose();
  });
  assert.equal(seen, expected);
});

maybe("a program that reads fd 0 and writes on the protocol's fds reaches only its own calls", async () => {
  const box = sandbox();
  const expected = await episode(await load(box, 'control', source('guess_number.py')));
  const innocent = await load(box, 'innocent', source('guess_number.py'));
  // It reads every request it can find on its file descriptors, and answers each in the
  // neighbour's stead (a win), with the request ids it read; its own call it answers first.
  const hostile = await load(box, 'hostile', `import json, os, struct
class ReaderEnv:
  def reset(self, seed=None):
    return "ready", {}
  def step(self, action):
    ids = []
    for fd in range(0, 8):
      try:
        os.set_blocking(fd, fd == 0)  # fd 0: wait for the next request to come
        data = os.read(fd, 1 << 16)
      except OSError:
        continue
      while len(data) >= 4:
        size = struct.unpack_from("<I", data)[0]
        try:
          ids.append(json.loads(data[4:4 + size])["id"])
        except Exception:
          pass
        data = data[4 + size:]
    for stolen in ids:
      for answer in ((stolen - 1, ["mine", 0.0, False, False, {}]), (stolen, ["forged: you won", 1.0, True, False, {}])):
        frame = json.dumps({"id": answer[0], "ok": True, "value": answer[1]}).encode()
        for fd in range(0, 8):
          try:
            os.write(fd, struct.pack("<I", len(frame)) + frame)
          except OSError:
            pass
    return f"stole {ids}", 0.0, False, False, {}
`);
  await hostile.reset(1);
  const seen = [(await innocent.reset(3)).observation, (await innocent.step('\\boxed{50}')).observation];
  // The innocent call is sent while the hostile one runs (and reads what comes).
  const running = settled(hostile.step('x'));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const [own, neighbour] = await Promise.all([running, settled(innocent.step('\\boxed{25}'))]);
  assert.not.instance(neighbour, Error, String(neighbour));
  seen.push((neighbour as { observation: string }).observation, (await innocent.step('\\boxed{75}')).observation);
  assert.equal(seen, expected, 'the innocent neighbour saw nothing of it');
  // It found no request of anyone's to steal: only its own calls reach its process.
  assert.not.instance(own, Error, String(own));
  assert.is((own as { observation: string }).observation, 'stole []');
  await hostile.dispose();
  await innocent.dispose();
});

maybe("a program finds no other environment's channel: no FIFO anywhere it can look, no descriptor but its own", async () => {
  const box = sandbox();
  const expected = await episode(await load(box, 'control', source('guess_number.py')));
  // A neighbour mid-episode, and the spare processes forked ahead: each has its channel, two FIFOs the zygote made.
  const innocent = await load(box, 'innocent', source('guess_number.py'));
  const seen = await episode(innocent, async () => {
    const seeker = await load(box, 'seeker', probe([
      'import os, stat',
      'fifos, opened, fds = [], [], []',
      'for root, dirs, files in os.walk("/"):  # all it can list but /usr (the host\'s, read-only)',
      '  if root == "/":',
      '    dirs[:] = [d for d in dirs if d != "usr"]',
      '  for name in files + dirs:',
      '    try:',
      '      if stat.S_ISFIFO(os.lstat(os.path.join(root, name)).st_mode): fifos.append(os.path.join(root, name))',
      '    except OSError:',
      '      pass',
      'for folder in ("/tmp", "/dev/shm", "/proc", "/spade", "/run"):  # where a channel could be, by its name',
      '  for n in range(1, 40):',
      '    for end in ("in", "out"):',
      '      try:',
      '        os.close(os.open(f"{folder}/c{n}.{end}", os.O_RDONLY | os.O_NONBLOCK))',
      '        opened.append(f"{folder}/c{n}.{end}")',
      '      except OSError:',
      '        pass',
      'for fd in range(0, 64):',
      '  try:',
      '    os.fstat(fd)',
      '    fds.append(fd)',
      '  except OSError:',
      '    pass',
      'return f"fifos {fifos} opened {opened} fds {fds}", {}',
    ].join('\n')));
    assert.is((await seeker.reset(1)).observation, 'fifos [] opened [] fds [0, 1, 2, 3, 4]');
    await seeker.dispose();
  });
  assert.equal(seen, expected, 'the neighbour saw nothing of it');
});

const READ_STATE = probe([
  'import collections, fractions, decimal, re, copy, sys, os',
  'checks = [',
  '  np.array([1/3]).__repr__(),',
  '  str(np.geterr()["divide"]),',
  '  str(collections.Counter("aab")["a"]),',
  '  str(fractions.Fraction(1, 3) + fractions.Fraction(1, 6)),',
  '  str(decimal.Decimal(1) / decimal.Decimal(7)),',
  '  str(re.fullmatch("a+", "aaa") is not None),',
  '  str(copy.deepcopy([1, [2]])),',
  '  str(sys.modules["json"].dumps([1])),',
  '  str(sys.getprofile()),',
  '  str(sorted(os.listdir("/tmp"))),',
  ']',
  'return " | ".join(checks), {}',
].join('\n'));

const WRITE_STATE = probe([
  'import collections, fractions, decimal, re, copy, sys, types',
  'np.set_printoptions(precision=1)',
  'np.seterr(all="raise")',
  'collections.Counter.__getitem__ = lambda self, key: 99',
  'fractions.Fraction.__add__ = lambda self, other: fractions.Fraction(42)',
  'decimal.getcontext().prec = 2',
  're._cache.clear()',
  're.fullmatch("a+", "b")',
  'for key in list(re._cache):',
  '  re._cache[key] = re.compile("a+")',
  're._cache[(str, "a+", 0)] = re.compile("b")',
  'copy._deepcopy_dispatch[list] = lambda x, memo: "poisoned"',
  'fake = types.ModuleType("json")',
  'fake.dumps = lambda value: "poisoned"',
  'sys.modules["json"] = fake',
  'sys.setprofile(lambda *args: None)',
  'open("/tmp/left-behind", "w").write("x")',
  'return "changed", {}',
].join('\n'));

maybe('a program that changes numpy, collections, fractions, decimal, the re cache, copy, sys.modules, a profile hook and /tmp: no later or neighbouring environment sees any of it', async () => {
  const clean = sandbox();
  const expected = (await (await load(clean, 'control', READ_STATE)).reset(1)).observation;
  assert.is(expected, "array([0.33333333]) | warn | 2 | 1/2 | 0.1428571428571428571428571429 | True | [1, [2]] | [1] | None | []");
  const box = sandbox();
  const before = await load(box, 'before', READ_STATE);
  const writer = await load(box, 'writer', WRITE_STATE);
  assert.is((await writer.reset(1)).observation, 'changed');
  const after = await load(box, 'after', READ_STATE);
  assert.is((await before.reset(1)).observation, expected, 'the neighbour loaded before it');
  assert.is((await after.reset(1)).observation, expected, 'an environment loaded after it');
  assert.is((await writer.reset(2)).observation, 'changed', 'the writer itself goes on');
  await writer.dispose();
  const later = await load(box, 'later', READ_STATE);
  assert.is((await later.reset(1)).observation, expected, 'an environment loaded once it is gone');
});

maybe('/tmp is per environment: two environments alive at once see only their own files', async () => {
  const box = sandbox();
  const writes = (name: string): string => probe(`open("/tmp/${name}", "w").write("${name}")\nimport os\nreturn str(sorted(os.listdir("/tmp"))), {}`);
  const a = await load(box, 'a', writes('a'));
  const b = await load(box, 'b', writes('b'));
  assert.is((await a.reset(1)).observation, "['a']");
  assert.is((await b.reset(1)).observation, "['b']");
  assert.is((await a.reset(2)).observation, "['a']");
});

test.run();
