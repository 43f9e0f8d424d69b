import { readFileSync } from 'node:fs';
const { loadPyodide } = await import('../../../node_modules/pyodide/pyodide.mjs' as string);
const py = await loadPyodide({ indexURL: '/work/main/node_modules/pyodide/' });
const dir = '/work/main/plugins/sandboxes/pyodide/';
py.FS.mkdirTree('/lib/spade'); py.FS.writeFile('/lib/spade/math_verify.py', readFileSync(dir + 'math_verify.py', 'utf8'));
py.runPython("import sys\nsys.path.insert(0, '/lib/spade')\nimport math_verify");
py.runPython(readFileSync(dir + 'prelude.py', 'utf8'));
const load = py.globals.get('spade_load'), call = py.globals.get('spade_call');
console.log(load('e1', 'class E:\n  def reset(self, seed=None): return "o", {}\n  def step(self, a): return "o", 0.0, False, False, {}\n'));
console.log(call('e1', 'reset', '[1]'));
let t = performance.now(); for (let i = 0; i < 2000; i++) call('e1', 'step', '["x"]'); console.log('spade_call us', (performance.now() - t) / 2 );
py.runPython('import time\ndef bench(f, n=2000):\n  t=time.perf_counter()\n  for _ in range(n): f()\n  return (time.perf_counter()-t)/n*1e6');
console.log("restore us", py.runPython("bench(_restore_shared_state)"));
console.log('enter/leave us', py.runPython('e=_environments["e1"]\ndef el():\n  e.enter(); e.leave()\nbench(el)'));
console.log('reply us', py.runPython('bench(lambda: _reply_ok(("o", 0.0, False, False, {})))'));
t = performance.now(); const f = py.globals.get('spade_dispose'); for (let i = 0; i < 2000; i++) f('zz'); console.log('js->py dispose us', (performance.now() - t) / 2);
console.log(py.runPython(`
out=[]
for current, size, keys, values, snapshot in _SNAPSHOTS:
    if len(current) != size or not all(map(operator.is_, map(current.get, keys), values)):
        out.append((current.get('__name__'), len(current), size, [k for k in keys if current.get(k) is not snapshot[k]][:5]))
str(out) + ' ' + str(len(_SNAPSHOTS)) + ' ' + str(sum(s[1] for s in _SNAPSHOTS))
`));
console.log('bench map', py.runPython('bench(lambda: [all(map(operator.is_, map(c.get, k), v)) for c, _, k, v, _ in _SNAPSHOTS])'));
console.log('call only', py.runPython('e=_environments["e1"]\nbench(lambda: e.instance.step("x"))'));
console.log('run_guarded', py.runPython('bench(lambda: _run_guarded(e, lambda: e.instance.step("x")))'));
console.log('spade_call py', py.runPython('bench(lambda: spade_call("e1", "step", "[\\"x\\"]"))'));
const wrapped = py.runPython('lambda: spade_call("e1", "step", "[\\"x\\"]")');
t = performance.now(); for (let i = 0; i < 500; i++) wrapped(); console.log('js->wrapped us', (performance.now() - t) / 0.5);
t = performance.now(); for (let i = 0; i < 500; i++) call('e1', 'step', '["x"]'); console.log('js->spade_call us', (performance.now() - t) / 0.5);
const rg = py.runPython('lambda: _run_guarded(e, lambda: e.instance.step("x"))');
t = performance.now(); for (let i = 0; i < 500; i++) rg(); console.log('js->run_guarded us', (performance.now() - t) / 0.5);
const el = py.runPython('lambda: (e.enter(), e.leave())');
t = performance.now(); for (let i = 0; i < 500; i++) el(); console.log('js->enter/leave us', (performance.now() - t) / 0.5);
console.log('py enter/leave', py.runPython('bench(lambda: (e.enter(), e.leave()))'));
