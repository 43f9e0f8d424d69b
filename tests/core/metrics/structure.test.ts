import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { javascriptNodeTypes, programFeatures, programNodeTypes, structureFeatures } from '../../../core/metrics/index.js';
import { dataNodeTypes } from '../../../core/metrics/structure.js';
import { answerProgram } from '../../../benchmarks/answer-program.js';

test('JavaScript node types in pre-order, from acorn', () => {
  assert.equal(javascriptNodeTypes('x = 1;'), ['Program', 'ExpressionStatement', 'AssignmentExpression', 'Identifier', 'Literal']);
  // modules parse too; syntax errors give no structure
  assert.ok(javascriptNodeTypes('export class Env {}').includes('ClassDeclaration'));
  assert.equal(javascriptNodeTypes('class {'), []);
});

test('hostile nesting never crashes the metric', () => {
  // deep enough to exhaust the parser's own recursion: the program counts as having no structure
  const deep = `${'['.repeat(200000)}${']'.repeat(200000)}`;
  assert.ok(Array.isArray(javascriptNodeTypes(deep)));
  // moderately deep programs are walked without recursion
  assert.ok(javascriptNodeTypes(`${'['.repeat(300)}${']'.repeat(300)}`).length > 300);
});

test('precomputed node types (Python) are used as given', () => {
  assert.equal(programNodeTypes({ source: 'x = 1', language: 'python', nodeTypes: ['Module', 'Assign'] }), ['Module', 'Assign']);
  assert.equal(programNodeTypes({ source: 'x = 1', language: 'python' }), []);
});

test('features are node-type 1..3-grams', () => {
  // 3 unigrams + 2 bigrams + 1 trigram
  assert.equal(structureFeatures(['A', 'B', 'C']), ['A', 'B', 'C', 'A>B', 'B>C', 'A>B>C']);
});

test('programs that differ only in their literals share one features array; others do not', () => {
  const template = (question: string) => `export default class Q { reset() { return [${JSON.stringify(question)}, {}]; } step(a) { return ['done', a === '42' ? 1 : 0, true, false, {}]; } }`;
  const a = programFeatures({ source: template('What is 6 * 7?'), language: 'javascript' });
  const b = programFeatures({ source: template('How many legs do 21 birds have?'), language: 'javascript' });
  const c = programFeatures({ source: `export default class Q { reset() { return ['x', {}]; } step(a) { return ['y', 0, true, false, {}]; } hint() { return 'z'; } }`, language: 'javascript' });
  assert.is(a, b, 'one array for one structure');
  assert.is.not(a, c);
  assert.ok(a.includes('Program') && a.length > 10);
});

test('a program that opens with its data has the structure of the whole program, its code parsed once', () => {
  const code = `function twice(x) { return 2 * x; }\nexport default class Q { reset() { return [QUESTION, { n: P.n }]; } step(a) { return ['done', 0, true, false, {}]; } }\n`;
  const programs = [
    `const QUESTION = "What is 6 * 7?";\nconst P = {"n":3,"list":[1,-2,{"x":null}]};\n${code}`,
    `// a template\nconst QUESTION = "How many legs?";\nconst P = {"n":-4.5e3,"flag":true};\n${code}`,
    `const QUESTION = "a";\n'use strict';\n${code}`,
    `const QUESTION = "say \\"hi\\" \\u00e9 \\\\";\nconst P = {"b":[1,{"c":-0.5}],"1":2,"x":[[],{}],"f":false,"e":1e+21};\n${code}`,
    // Strings only (a dataset task's header): read without a parse, with the same node types.
    `const QUESTION = "Twice \\"6\\"? \\u2029 \u00e9 \u2019";\nconst ANSWER = "";\nconst HINT = "\\\\";\n${code}`,
    // Quotes after runs of backslashes: escaped after an odd run, closing after an even one.
    `const QUESTION = "ends in a backslash \\\\";\nconst P = {"k\\\\\\"e":"\\\\\\\\","w":["\\\\\\"",1,"\\"\\""],"z":["\\\\",{"a":[2]}]};\n${code}`,
  ];
  for (const source of programs) assert.equal(programNodeTypes({ source, language: 'javascript' }), javascriptNodeTypes(source), source.slice(0, 40));
  // A dataset task (strings only in its header) has the structure of its whole source.
  const task = answerProgram({ id: 't', question: 'What is "6 * 7"?\n\u2019', answer: '42', checker: 'numeric', hint: 'Multiply.', family: 'f', origin: 'o' });
  assert.equal(programNodeTypes(task), javascriptNodeTypes(task.source));
  assert.equal(dataNodeTypes(['"a"', '"\\u2028"', '""']), javascriptNodeTypes('const a = "a";\nconst b = "\\u2028";\nconst c = "";'));
  // A program that does not parse has no structure, data header or not.
  assert.equal(programNodeTypes({ source: `const QUESTION = "a";\nclass {`, language: 'javascript' }), []);
});

test.run();
