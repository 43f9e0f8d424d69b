import { test } from 'uvu';
import * as assert from 'uvu/assert';
import vm from 'node:vm';
import { prepareScript } from '../../../plugins/sandboxes/program.js';
import { SandboxError } from '../../../core/types.js';
import type { SandboxFailureKind } from '../../../core/types.js';

const METHODS = '{ reset() { return ["r", {}]; } step() { return ["s", 0, true, false, {}]; } }';

/** Run a prepared script in a throwaway node:vm context and return the class's name. */
function classFrom(source: string): string {
  const factory = vm.runInNewContext(prepareScript(source).script) as () => { name: string };
  return factory().name;
}

function kindOf(source: string): SandboxFailureKind {
  try {
    prepareScript(source);
  } catch (error) {
    assert.instance(error, SandboxError);
    return (error as SandboxError).kind;
  }
  assert.unreachable('expected a SandboxError');
  throw new Error('unreachable');
}

test('the default export wins over other classes', () => {
  assert.is(classFrom(`class Other ${METHODS}\nexport default class Chosen ${METHODS}`), 'Chosen');
  assert.is(classFrom(`class Other ${METHODS}\nclass Chosen ${METHODS}\nexport default Chosen;`), 'Chosen');
  assert.is(classFrom(`class Other ${METHODS}\nclass Chosen ${METHODS}\nexport { Chosen as default, Other };`), 'Chosen');
  assert.is(prepareScript(`export default class ${METHODS}`).className, '__SpadeEnvironment');
});

test('without a default export, the single class with reset and step (own or inherited)', () => {
  assert.is(classFrom(`class Helper { reset() {} }\nclass Game ${METHODS}`), 'Game');
  assert.is(classFrom(`class Base ${METHODS}\nclass Game extends Base { hint() { return ''; } }`), 'Game');
  assert.is(classFrom(`const Game = class ${METHODS};`), 'Game');
  assert.is(classFrom('class Arrow { reset = (seed) => ["r", {}]; step = (a) => ["s", 0, true, false, {}]; }'), 'Arrow');
});

test('top-level code runs only when the factory is called, and a directive prologue is kept', () => {
  const script = prepareScript(`'use strict';\nglobalThis.ran = true;\nclass Game ${METHODS}`).script;
  const context = vm.createContext({});
  const factory = vm.runInContext(script, context) as () => unknown;
  assert.is(context.ran, undefined);
  factory();
  assert.is(context.ran, true);
  assert.throws(() => vm.runInContext(prepareScript(`'use strict';\nundeclared = 1;\nclass Game ${METHODS}`).script, context)());
});

test('syntax errors, missing or ambiguous classes and imports are classified', () => {
  assert.is(kindOf('class {'), 'syntax');
  assert.is(kindOf('function reset() {}'), 'load');
  assert.is(kindOf(`class A ${METHODS}\nclass B ${METHODS}`), 'load');
  assert.is(kindOf(`import x from "lodash";\nclass A ${METHODS}`), 'load');
  assert.is(kindOf(`import { execSync } from "child_process";\nclass A ${METHODS}`), 'escape-attempt');
  assert.is(kindOf(`import fs from "node:fs";\nclass A ${METHODS}`), 'escape-attempt');
  assert.is(kindOf(`export * from "./other.js";\nclass A ${METHODS}`), 'load');
});

test('sloppy scripts that are not valid modules still load', () => {
  assert.is(classFrom(`with (Math) { var r = max(1, 2); }\nclass Game ${METHODS}`), 'Game');
});

test.run();
