/**
 * Tool-use games in the isolated-vm sandbox: a warm tool-call step of a ToolUseBaseEnv program
 * (parse the <tool_call>, dispatch, format the result) beside a warm step of a plain multi-turn
 * program, a reset that generates a new world then reads the tools, the validation gate, and
 * the whole evaluation (gate and 8 episodes of the reference agent) of each reference tool-use
 * family at difficulty 5. Then, where the cpython jail works, the same for SPADE's Python
 * ToolUseBaseEnv: a warm tool-call step, and a reset with and without reading the tools (what
 * reading them adds to every episode).
 * Run: node --no-node-snapshot --import tsx perf/tool-use.bench.ts
 */
import { readFileSync } from 'node:fs';
import { createCpythonSandbox } from '../plugins/sandboxes/cpython/sandbox.js';
import { checkJail } from '../plugins/sandboxes/cpython/jail.js';
import { Bench } from 'tinybench';
import { createIsolatedVmSandbox } from '../plugins/sandboxes/isolated-vm.js';
import { createReferenceAgent } from '../plugins/reference/agent.js';
import { FAMILIES } from '../plugins/reference/families/index.js';
import { gridKeysDoors } from '../plugins/reference/families/grid-keys-doors.js';
import { archiveSearch } from '../plugins/reference/families/archive-search.js';
import { validateEnvironment } from '../core/gate/gate.js';
import { evaluateEnvironment, type EvaluationContext } from '../core/run/evaluate.js';
import type { EnvironmentProgram } from '../core/types.js';
import { benchRows, publish, type Table } from './publish.js';

const sandbox = createIsolatedVmSandbox({ limits: { maxCalls: Number.POSITIVE_INFINITY } });
const program = (id: string, source: string, family: string): EnvironmentProgram => ({ id, language: 'javascript', source, meta: { family, difficulty: 5 } });

const archive = program('bench/archive', archiveSearch.program(5), 'archive-search');
const grid = program('bench/grid', gridKeysDoors.program(5), 'grid-keys-doors');
const toolEnv = await sandbox.load(archive);
const gridEnv = await sandbox.load(grid);
await toolEnv.reset(1);
await gridEnv.reset(1);
const call = '<tool_call>{"name": "list_folders", "arguments": {}}</tool_call>';

const context: EvaluationContext = {
  suite: 'bench',
  sandboxes: { get: async () => sandbox, close: async () => {} },
  agent: createReferenceAgent(),
  limits: {},
  attempts: 4,
  withHint: true,
  runSeed: 1,
};

let seed = 0;
const bench = new Bench({ name: 'tool-use games (isolated-vm)', time: 1500, warmupTime: 200 });
bench
  .add('step, warm: a tool call (ToolUseBaseEnv)', async () => {
    // Past max_turns the base truncates every step; a fresh episode now and then keeps it in play.
    if (++seed % 8 === 0) await toolEnv.reset(seed);
    await toolEnv.step(call);
  })
  .add('step, warm: a grid move (plain multi-turn program)', async () => {
    if (++seed % 8 === 0) await gridEnv.reset(seed);
    await gridEnv.step('\\boxed{up}');
  })
  .add('reset on a new seed (generates the archive) + getTools (archive-search)', async () => {
    await toolEnv.reset(seed++);
    await toolEnv.getTools!();
  })
  .add('validation gate, archive-search d5', async () => {
    await validateEnvironment(sandbox, archive, { seed: seed++ });
  });
for (const family of FAMILIES.filter((f) => f.toolUse)) {
  const source = family.program(5);
  bench.add(`evaluation (gate + 8 episodes), ${family.name} d5`, async () => {
    await evaluateEnvironment(program(`bench/${family.name}`, source, family.name), seed++, context);
  });
}

await bench.run();
const tables: Table[] = [{ caption: bench.name, rows: benchRows(bench) }];
await toolEnv.dispose();
await gridEnv.dispose();
await sandbox.close();

if (!checkJail().problem) {
  const python = createCpythonSandbox({ limits: { maxCalls: Number.POSITIVE_INFINITY }, workers: 1 });
  const source = readFileSync(new URL('../tests/fixtures/spade-format/tool_use_inventory.py', import.meta.url), 'utf8');
  const inventory = await python.load({ id: 'bench/inventory-py', language: 'python', source });
  await inventory.reset(1);
  const get = '<tool_call>{"name": "get_stock", "arguments": {"item": "bolts", "warehouse": "warehouse_a"}}</tool_call>';
  const py = new Bench({ name: 'tool-use games (cpython, SPADE\'s Python ToolUseBaseEnv)', time: 1500, warmupTime: 200 });
  py.add('step, warm: a tool call', async () => {
    if (++seed % 8 === 0) await inventory.reset(seed);
    await inventory.step(get);
  })
    .add('reset', async () => {
      await inventory.reset(seed++);
    })
    .add('reset + getTools', async () => {
      await inventory.reset(seed++);
      await inventory.getTools!();
    });
  await py.run();
  tables.push({ caption: py.name, rows: benchRows(py) });
  await inventory.dispose();
  await python.close();
}
publish(import.meta.url, {
  about: "Tool-use games in isolated-vm: a warm tool-call step of a ToolUseBaseEnv program beside a warm step of a plain multi-turn program, a reset that makes a new world and reads the tools, the validation gate, and the whole evaluation (gate and 8 episodes) of each reference tool-use family at difficulty 5; then SPADE's Python ToolUseBaseEnv in the cpython sandbox, where its jail runs.",
  tables,
  notes: checkJail().problem ? [`cpython rows skipped: ${checkJail().problem}`] : [],
});
