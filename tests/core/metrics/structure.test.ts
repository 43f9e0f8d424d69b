import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { javascriptNodeTypes, programNodeTypes, structureFeatures } from '../../../core/metrics/index.js';

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

test.run();
