import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DATA_PARAMETER, dataArray, dataHeaderOf, shareDataHeader, splitDataHeader } from '../../../core/results/data-header.js';

test('a program that opens with data lines: the values taken out, the code the same for every program of a template', () => {
  const code = 'function f() { return QUESTION; }\nexport default class Q {}\n';
  const a = splitDataHeader(`// a template\nconst QUESTION = "What is \\"6\\" * 7?";\nconst P = {"n":[1,-2.5e3,null],"ok":true};\n${code}`)!;
  const b = splitDataHeader(`// a template\nconst QUESTION = "Another";\nconst P = {"n":[]};\n${code}`)!;
  assert.equal(a.names, ['QUESTION', 'P']);
  assert.equal(JSON.parse(dataArray(a)), ['What is "6" * 7?', { n: [1, -2500, null], ok: true }]);
  assert.is(a.code, b.code, 'one code for both');
  assert.is(a.code, `// a template\nconst QUESTION = ${DATA_PARAMETER}[0];\nconst P = ${DATA_PARAMETER}[1];\n${code}`, 'each value replaced on its own line');
  assert.is(a.code.split('\n').length, `// a template\nx\nx\n${code}`.split('\n').length);
});

test('anything else is left as it is', () => {
  const cases = [
    'class Q {}\n', // no data line
    '// only a comment\nclass Q {}\n',
    'const X = f();\nclass Q {}\n', // not JSON
    'const X = "a"; const Y = "b";\nclass Q {}\n', // two statements on a line
    `const X = "a\u2028b";\nclass Q {}\n`, // a line break to V8 inside the value
    `const X = 1;\nconst ${DATA_PARAMETER} = 2;\n`, // the code names the parameter
    'const X = 1;', // no line break: nothing after the data
  ];
  for (const source of cases) assert.is(splitDataHeader(source), undefined, JSON.stringify(source));
  // The header stops at the first line that is not data: later constants stay in the code.
  const split = splitDataHeader('const A = 1;\nlet b = 2;\nconst C = 3;\n')!;
  assert.equal(split.names, ['A']);
  assert.match(split.code, /const C = 3;/);
});


test('a dataset task declares the header its source splits into, one code string for every task of a template', async () => {
  const { answerProgram } = await import('../../../benchmarks/answer-program.js');
  const base = { family: 'qa', origin: 'test', checker: 'numeric' as const };
  const tasks = [
    { ...base, id: 'a', question: 'What is "6" * 7?\nShow the steps.', answer: '42' },
    { ...base, id: 'b', question: 'Half of 18 \\ 2 ?', answer: '9', hint: 'Divide by two.' },
    { ...base, id: 'c', question: 'é, 日本, and a tab\there', answer: '3', checker: 'exact' as const },
    { ...base, id: 'd', question: 'Another question', answer: '5', hint: 'Think.' },
  ];
  const programs = tasks.map((task) => answerProgram(task));
  for (const program of programs) {
    const declared = dataHeaderOf(program);
    assert.ok(declared, program.id);
    assert.equal(declared, splitDataHeader(program.source), program.id);
    // A copy of the program (as results.json reads it back) splits its source to the same header.
    assert.equal(dataHeaderOf({ source: program.source }), declared, program.id);
  }
  assert.ok(dataHeaderOf(programs[0]!)!.code === dataHeaderOf(programs[2]!)!.code, 'tasks without a hint share one code string');
  assert.ok(dataHeaderOf(programs[1]!)!.code === dataHeaderOf(programs[3]!)!.code, 'tasks with a hint share one code string');
  // A question with U+2028 has no data line for it: nothing is declared, and splitting says what the header is.
  const odd = answerProgram({ ...base, id: 'e', question: 'one\u2028two', answer: '1' });
  assert.equal(dataHeaderOf(odd), splitDataHeader(odd.source));
  // A summary with its program's source shares its declared header.
  const summary = { get source() { return programs[1]!.source; } };
  shareDataHeader(summary, programs[1]!);
  assert.ok(dataHeaderOf(summary) === dataHeaderOf(programs[1]!));
});

test.run();
