/** The reference designer: deterministic, spread over families, and adaptive toward the solve-rate band. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DesignRequest, EnvironmentProgram, EnvironmentRecord } from '../../../core/types.js';
import { createReferenceDesigner, START_DIFFICULTY } from '../../../plugins/reference/designer.js';
import { FAMILIES } from '../../../plugins/reference/families/index.js';
import { loadProgram, referenceWins } from './load-program.js';

const designer = createReferenceDesigner();

function request(round: number, memory: EnvironmentRecord[] = [], seed = 42, count = 16): DesignRequest {
  return { round, count, seed, memory, recentSolveRates: [] };
}

function meanDifficulty(programs: EnvironmentProgram[]): number {
  return programs.reduce((sum, p) => sum + p.meta!.difficulty!, 0) / programs.length;
}

/** Memory as if the agent had solved every environment of `programs` at this rate. */
function remembered(programs: EnvironmentProgram[], round: number, solveRate: number): EnvironmentRecord[] {
  return programs.map((p) => ({
    id: p.id,
    round,
    family: p.meta!.family,
    difficulty: p.meta!.difficulty,
    valid: true,
    solveRate,
  }));
}

test('same request, same programs; another seed, other programs', async () => {
  const a = await designer.design(request(0));
  const b = await designer.design(request(0));
  const c = await designer.design(request(0, [], 43));
  assert.equal(a, b);
  assert.not.equal(a.map((p) => p.source), c.map((p) => p.source));
});

test('writes count labelled JavaScript programs spread over the families, that load and win', async () => {
  const programs = await designer.design(request(2, [], 7, 10));
  assert.is(programs.length, 10);
  assert.equal(programs.map((p) => p.id), Array.from({ length: 10 }, (_, i) => `r2-e${i}`));
  assert.ok(new Set(programs.map((p) => p.meta!.family)).size >= Math.min(10, FAMILIES.length));
  for (const program of programs) {
    assert.is(program.language, 'javascript');
    assert.is(program.meta!.origin, 'reference-designer');
    assert.ok(program.meta!.horizon! >= 1);
    const make = loadProgram(program.source);
    assert.is(make().reset(1)[1].horizon, program.meta!.horizon);
    assert.ok(referenceWins(make, 1).won, program.id);
  }
  assert.is(designer.kind, 'reference');
  assert.match(designer.label, /reference policy/);
});

test('a round that asks for tool-use skills only (--game-type tool-use) is spread over the tool-use families only', async () => {
  const toolUse = FAMILIES.filter((f) => ['API Orchestration', 'Data Retrieval', 'State Modification'].includes(f.skill)).map((f) => f.name).sort();
  assert.is(toolUse.length, 3);
  const programs = await designer.design({ ...request(0), count: 6, skills: ['API Orchestration', 'Data Retrieval', 'State Modification'] });
  assert.equal([...new Set(programs.map((p) => p.meta!.family!))].sort(), toolUse);
  assert.ok(programs.every((p) => /extends ToolUseBaseEnv/.test(p.source)));
  // A round with a cognitive skill among them is spread over every family, as before.
  const mixed = await designer.design({ ...request(0), count: FAMILIES.length, skills: ['API Orchestration', 'Logical Deduction'] });
  assert.is(new Set(mixed.map((p) => p.meta!.family)).size, FAMILIES.length);
});

test('round 0 starts at a low-middle difficulty', async () => {
  const programs = await designer.design(request(0, [], 1, FAMILIES.length));
  assert.ok(programs.every((p) => p.meta!.difficulty === START_DIFFICULTY));
  assert.ok(START_DIFFICULTY >= 2 && START_DIFFICULTY <= 5);
});

test('difficulty climbs while the agent solves too much, falls when it solves too little, holds in the band', async () => {
  let memory: EnvironmentRecord[] = [];
  let programs = await designer.design(request(0, memory));
  const start = meanDifficulty(programs);
  for (let round = 1; round <= 3; round++) {
    memory = [...memory, ...remembered(programs, round - 1, 1)];
    programs = await designer.design(request(round, memory));
  }
  const raised = meanDifficulty(programs);
  assert.ok(raised >= start + 3, `${start} -> ${raised}`);

  const lowered = await designer.design(request(4, [...memory, ...remembered(programs, 3, 0)]));
  assert.ok(meanDifficulty(lowered) <= raised - 1.5, `${raised} -> ${meanDifficulty(lowered)}`);

  const held = await designer.design(request(4, [...memory, ...remembered(programs, 3, 0.5)]));
  assert.ok(Math.abs(meanDifficulty(held) - raised) < 0.5, `${raised} -> ${meanDifficulty(held)}`);
});

test('invalid environments and other families do not move a family', async () => {
  const memory: EnvironmentRecord[] = [
    { id: 'a', round: 0, family: 'subset-sum', difficulty: 3, valid: false, solveRate: 1 },
    { id: 'b', round: 0, family: 'unknown-family', difficulty: 9, valid: true, solveRate: 0 },
  ];
  const programs = await designer.design(request(1, memory, 5, FAMILIES.length));
  assert.ok(programs.every((p) => p.meta!.difficulty === START_DIFFICULTY));
});

test.run();
