/**
 * SPADE's ToolUseBaseEnv in both JavaScript sandboxes: a program extends it with no import,
 * exposes its tools as OpenAI function schemas after reset(), and is played with <tool_call> and
 * <answer> exactly as SPADE's Python base plays it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SandboxError, type LoadedEnvironment, type Sandbox } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createVm2Sandbox } from '../../../plugins/sandboxes/vm2.js';
import { fixture, program } from '../../fixtures/programs/load.js';

const limits = { callTimeoutMs: 10_000 };
const sandboxes: [string, Sandbox][] = [
  ['isolated-vm', createIsolatedVmSandbox({ limits })],
  ['vm2', createVm2Sandbox({ limits })],
];

const call = (name: string, args: Record<string, unknown> = {}) => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

/** The inventory game's item and expected total, read through its own tools. */
async function inventoryAnswer(env: LoadedEnvironment, observation: string): Promise<{ item: string; total: number }> {
  const item = /How many (\w+)/.exec(observation)![1]!;
  let total = 0;
  for (const warehouse of ['north', 'south']) {
    const step = await env.step(call('get_stock', { item, warehouse }));
    total += Number(step.observation.split('\n')[1]);
  }
  return { item, total };
}

for (const [name, sandbox] of sandboxes) {
  test(`${name}: a subclass needs no import; its tools are OpenAI function schemas after reset()`, async () => {
    const env = await sandbox.load(fixture('tool-use/inventory'));
    assert.equal(env.capabilities, { solution: true, hint: false, referenceAction: false, tools: true });
    const { observation, info } = await env.reset(3);
    assert.match(observation, /^How many \w+ are in stock/);
    assert.equal(info, { max_turns: 10 }, "the base adds the environment's own max_turns as the horizon");
    const tools = await env.getTools!();
    assert.equal(tools.map((t) => t.function.name), ['list_warehouses', 'get_stock', 'get_price']);
    assert.equal(tools[1], {
      type: 'function',
      function: {
        name: 'get_stock',
        description: 'Units of an item held in one warehouse.',
        parameters: { type: 'object', properties: { item: { type: 'string' }, warehouse: { type: 'string' } }, required: ['item', 'warehouse'] },
      },
    });
    // As SPADE's get_tools(): a missing schema becomes an empty object schema.
    assert.equal(tools[2]!.function.parameters, { type: 'object', properties: {} });
    await env.dispose();
  });

  test(`${name}: tool calls give "Tool result:", unknown tools list the available ones, bad format costs 0.1`, async () => {
    const env = await sandbox.load(fixture('tool-use/inventory'));
    await env.reset(1);
    const listed = await env.step(`I will look first. ${call('list_warehouses')}`);
    assert.equal([listed.observation, listed.reward, listed.terminated, listed.truncated], ['Tool result:\n["north","south"]', 0, false, false]);
    const unknown = await env.step(call('delete_everything'));
    assert.equal([unknown.observation, unknown.reward], ["Unknown tool 'delete_everything'. Available: list_warehouses, get_stock, get_price", 0]);
    for (const [action, message] of [
      ['just words', 'Format error: use tools to call a function, or <answer>result</answer> to submit.'],
      ['<tool_call>{"name": "get_stock", </tool_call>', 'Format error: invalid tool call arguments.'],
      ['<tool_call>[1, 2]</tool_call>', 'Format error: invalid tool call arguments.'],
    ] as const) {
      const step = await env.step(action);
      assert.equal([step.observation, step.reward, step.terminated], [message, -0.1, false], action);
    }
    const unexpected = await env.step(call('get_stock', { item: 'bolts', warehouse: 'north', colour: 'red' }));
    assert.is(unexpected.observation, "Tool result:\nError calling get_stock: tool_get_stock() got an unexpected keyword argument 'colour'");
    const thrown = await env.step(call('get_stock', { item: 'anvils', warehouse: 'north' }));
    assert.match(thrown.observation, /^Tool result:\nError calling get_stock: /);
    await env.dispose();
  });

  test(`${name}: <answer> comes first and is compared tolerantly; a wrong one keeps the episode going`, async () => {
    const env = await sandbox.load(fixture('tool-use/inventory'));
    const { observation } = await env.reset(5);
    const { total } = await inventoryAnswer(env, observation);
    const wrong = await env.step(`<answer>${total + 1}</answer>`);
    assert.equal([wrong.observation, wrong.reward, wrong.terminated, wrong.truncated], ['Incorrect. Keep using tools.', 0, false, false]);
    // The answer wins over a tool call in the same reply; `$` and `,` go, and numbers within 0.01 are equal.
    const digits = String(total);
    const right = await env.step(`${call('list_warehouses')} <answer>$${digits[0]},${digits.slice(1)}.004</answer>`);
    assert.equal([right.observation, right.reward, right.terminated, right.truncated], ['Correct!', 1, true, false]);
    await env.reset(5);
    assert.is((await env.step(`<answer> ${total} </answer>`)).reward, 1);
    await env.dispose();
  });

  test(`${name}: the turn that reaches max_turns truncates and reveals solution(); reset() starts the count again`, async () => {
    const env = await sandbox.load(fixture('tool-use/inventory'));
    for (const last of [call('list_warehouses'), '<answer>0</answer>', 'nothing']) {
      await env.reset(2);
      for (let turn = 1; turn < 10; turn++) assert.not.ok((await env.step(call('list_warehouses'))).truncated, `turn ${turn}`);
      const step = await env.step(last);
      assert.ok(step.truncated && !step.terminated);
      assert.is(step.reward, 0);
      assert.match(step.observation, /(Time up|Wrong answer)\. Solution:\n<tool_call>/);
    }
    await env.dispose();
  });

  test(`${name}: the multi-turn variant reveals instructions one by one and names the pending step`, async () => {
    const env = await sandbox.load(fixture('tool-use/file-workflow-multi-turn'));
    const { observation } = await env.reset(0);
    assert.is(observation, 'Go to the document folder.');
    const early = await env.step('<answer>done</answer>');
    assert.equal([early.reward, early.terminated], [0, false]);
    assert.is(early.observation, 'Incorrect. Keep using tools. Not all steps are complete \u2014 you are still on step 1/3: "Go to the document folder." Complete this step with the tools before submitting <answer>done</answer>.');
    const cd = await env.step(call('cd', { path: '/home/document' }));
    assert.is(cd.observation, "Tool result:\nChanged to /home/document\n\n[STEP 1 COMPLETE \u2014 NEW INSTRUCTION] Create a subfolder named 'archive' there.");
    assert.match((await env.step('<answer>done</answer>')).observation, /still on step 2\/3/);
    await env.step(call('mkdir', { name: 'archive' }));
    const ls = await env.step(call('ls', { path: '/home/document/archive' }));
    assert.match(ls.observation, /\[ALL STEPS COMPLETE\] Submit <answer>done<\/answer>\.$/);
    const done = await env.step('<answer>done</answer>');
    assert.equal([done.observation, done.reward, done.terminated], ['Correct!', 1, true]);
    await env.dispose();
  });

  test(`${name}: a class with its own get_tools() exposes tools; a plain one does not; a bad tool name breaks the contract`, async () => {
    const own = await sandbox.load(fixture('tool-use/own-get-tools'));
    assert.ok(own.capabilities.tools);
    await own.reset(0);
    assert.equal((await own.getTools!()).map((t) => t.function.name), ['echo']);
    const plain = await sandbox.load(program('plain', "class P { reset() { return ['x', {}]; } step() { return ['x', 0, true, false, {}]; } }"));
    assert.is(plain.capabilities.tools, false);
    const bad = await sandbox.load(fixture('tool-use/bad-tool-name'));
    await bad.reset(0);
    const error = await bad.getTools!().catch((e: unknown) => e);
    assert.instance(error, SandboxError);
    assert.is((error as SandboxError).kind, 'contract');
    assert.match((error as Error).message, /tool name must be 1-64 letters/);
    for (const env of [own, plain, bad]) await env.dispose();
  });

  test(`${name}: a program cannot reach the host through the base class`, async () => {
    const env = await sandbox.load(program('probe', `class Probe extends ToolUseBaseEnv {
      reset() { this._tools = {}; this._expected_answer = String(typeof process) + String(typeof require); return ['probe', {}]; }
      solution() { return ''; }
    }`));
    await env.reset(0);
    assert.is((await env.step('<answer>undefinedundefined</answer>')).reward, 1);
    await env.dispose();
  });
}

test.after(async () => {
  for (const [, sandbox] of sandboxes) await sandbox.close();
});

test.run();
