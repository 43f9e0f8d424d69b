// Plugins outside the package: a file by its path, or a package of the user's project by
// `npm:name`, found from the project's folder as Node finds a package (never from spade-bench's
// own install), and never a path written as a package name.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadExternalPlugin } from '../../../core/config/plugin.js';
import { UsageError } from '../../../core/errors.js';
import { createRegistry } from '../../../core/setup/setup.js';
import { tempDir } from '../../helpers/cli.js';

const plugin = (id: string): string => `export default { kind: 'suite', id: '${id}', description: 'from a package', create() { return {}; } };\n`;

function installed(project: string, name: string, files: Record<string, string>): void {
  const root = path.join(project, 'node_modules', name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

async function refused(id: string, cwd: string): Promise<string> {
  try {
    await loadExternalPlugin(id, cwd);
  } catch (error) {
    assert.instance(error, UsageError);
    return (error as Error).message;
  }
  throw new Error(`${id}: loaded`);
}

test("npm:name loads the project's package, from the project's folder or one below it, by its exports or main", async () => {
  const project = tempDir();
  installed(project, 'spade-suite-capx', {
    'package.json': JSON.stringify({ name: 'spade-suite-capx', type: 'module', exports: { '.': { types: './x.d.ts', import: './dist/index.js' }, './extra': './extra.js' } }),
    'dist/index.js': plugin('capx'),
    'extra.js': plugin('capx-extra'),
  });
  installed(project, '@acme/old-style', { 'package.json': JSON.stringify({ name: '@acme/old-style', type: 'module', main: 'lib/main.js' }), 'lib/main.js': plugin('old') });
  const below = path.join(project, 'configs', 'nightly');
  mkdirSync(below, { recursive: true });
  assert.is((await loadExternalPlugin('npm:spade-suite-capx', project)).id, 'capx');
  assert.is((await loadExternalPlugin('npm:spade-suite-capx', below)).id, 'capx');
  assert.is((await loadExternalPlugin('npm:spade-suite-capx/extra', below)).id, 'capx-extra');
  assert.is((await loadExternalPlugin('npm:@acme/old-style', below)).id, 'old');
  assert.match(await refused('npm:spade-suite-capx/missing', project), 'exports no "./missing"');
  assert.match(await refused('npm:spade-suite-none', below), `npm:spade-suite-none: package spade-suite-none is not installed in ${below} or a folder above it (npm install spade-suite-none)`);
});

test('npm: names packages only: a path written after it is refused, never run', async () => {
  const project = tempDir();
  writeFileSync(path.join(project, 'x.mjs'), "throw new Error('this file must not run');\n");
  const sub = path.join(project, 'sub');
  mkdirSync(sub);
  for (const id of ['npm:../x.mjs', 'npm:./x.mjs', 'npm:/etc/passwd', 'npm:pkg/../../x.mjs', 'npm:']) {
    assert.match(await refused(id, sub), 'npm: names a package (npm:name, npm:@scope/name)', id);
  }
});

test("a loaded plugin's id is its own: one of a built-in's, or of another file's, is refused naming both", async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'gsm.mjs'), plugin('gsm8k'));
  writeFileSync(path.join(dir, 'a.mjs'), plugin('mine'));
  writeFileSync(path.join(dir, 'b.mjs'), plugin('mine'));
  const registry = createRegistry(dir);
  await registry.register(['./a.mjs', './a.mjs']);
  for (const [specs, message] of [
    [['./gsm.mjs'], 'plugin ./gsm.mjs: its id "gsm8k" is a built-in suite\'s: give it an id of its own'],
    [['./b.mjs'], 'plugin ./b.mjs: its id "mine" is that of ./a.mjs too: give each suite an id of its own'],
  ] as [string[], string][]) {
    try {
      await registry.register(specs);
      assert.unreachable(specs.join());
    } catch (error) {
      assert.instance(error, UsageError);
      assert.is((error as Error).message, message);
    }
  }
  assert.equal(registry.list().filter((p) => p.id === 'gsm8k').length, 1);
});

test.run();
