import { createPyodideSandbox } from '../../../plugins/sandboxes/pyodide/sandbox.js';
const sb = createPyodideSandbox();
const t0 = performance.now();
const env = await sb.load({ id: 'a', language: 'python', source: 'class E:\n  def reset(self, seed=None): return "o", {}\n  def step(self, a): return "o", 0.0, False, False, {}\n' });
console.log('first load', performance.now() - t0);
await env.reset(1);
for (const n of [200, 1000]) { const t1 = performance.now(); for (let i = 0; i < n; i++) await env.step('x'); console.log('step ms', (performance.now() - t1) / n); }
const t2 = performance.now(); for (let i = 0; i < 50; i++) { const e = await sb.load({ id: 'a', language: 'python', source: 'class E:\n  def reset(self, seed=None): return "o", {}\n  def step(self, a): return "o", 0.0, False, False, {}\n' }); await e.dispose(); }
console.log('warm load ms', (performance.now() - t2) / 50);
await sb.close();
