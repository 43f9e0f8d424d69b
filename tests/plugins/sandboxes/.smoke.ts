import { createPyodideSandbox } from '../../../plugins/sandboxes/pyodide/sandbox.js';
const sb = createPyodideSandbox();
console.log(sb.protections);
const t0 = performance.now();
const src = `
class GuessEnv:
    def reset(self, seed=None):
        self.n = random.randint(1, 100)
        return f"Guess a number {time.time()}", {}
    def step(self, action):
        return "ok", 1.0 if str(self.n) in action else 0.0, True, False, {"n": self.n}
    def solution(self):
        return str(self.n)
`;
try {
const env = await sb.load({ id: 'a', language: 'python', source: src });
console.log('load', performance.now() - t0, env.capabilities);
console.log(await env.reset(1), await env.solution(), await env.step('\\boxed{5}'));
const t1 = performance.now();
for (let i = 0; i < 200; i++) await env.step('x');
console.log('step ms', (performance.now() - t1) / 200);
const bad = await sb.load({ id: 'b', language: 'python', source: 'class E:\n  def reset(self, seed=None):\n    while True: pass\n  def step(self, a): pass\n' });
try { await bad.reset(1); } catch (e) { console.log('loop', e.kind, e.message); }
console.log(await env.step('x'));
} catch (e) { console.log('ERR', e); }
await sb.close();
