/**
 * `spade-bench list`: every plugin with a line of description.
 */
import { loadConfigFile, type UserConfig } from '../config/config.js';
import { chooseSandbox, createRegistry } from '../setup/setup.js';
import { EXIT } from '../errors.js';
import type { PluginKind, SandboxPlugin } from '../config/plugin.js';

const TITLES: Record<PluginKind, string> = {
  designer: 'Designers',
  agent: 'Agents',
  provider: 'Providers (usable as --designer or --agent: PREFIX:MODEL)',
  sandbox: 'Sandboxes (with the protections in force on this machine)',
  suite: 'Suites ("spade" is the self-play pool)',
};

/** The protections a sandbox has in force on this machine (it is created, asked, and closed). */
async function protectionsOf(registry: ReturnType<typeof createRegistry>, id: string): Promise<string[]> {
  try {
    const { plugin } = await registry.resolve('sandbox', id);
    const sandbox = await (plugin as SandboxPlugin).create({});
    const protections = [...sandbox.protections];
    await sandbox.close();
    return protections.length ? protections : ['(the sandbox names no protections)'];
  } catch (error) {
    return [`unavailable here: ${(error as Error).message.split('\n')[0]}`];
  }
}

/**
 * Which Python sandbox is in force, and why. A configured one that cannot run here is said so;
 * one that does not exist is a usage error (exit 2), as it is for a run.
 */
async function pythonSandboxInForce(registry: ReturnType<typeof createRegistry>, config: UserConfig): Promise<string> {
  if (config.pythonSandbox && !registry.has('sandbox', config.pythonSandbox)) await chooseSandbox(registry, config, 'python');
  try {
    const choice = await chooseSandbox(registry, config, 'python');
    return `${choice.id} (${choice.why})`;
  } catch (error) {
    return `none: ${(error as Error).message}`;
  }
}

export async function listCommand(args: { config?: string }): Promise<number> {
  const { config } = await loadConfigFile(process.cwd(), args.config);
  const registry = createRegistry();
  await registry.register(config.plugins ?? []);
  const plugins = registry.list();
  const out: string[] = [];
  for (const kind of Object.keys(TITLES) as PluginKind[]) {
    const rows = plugins.filter((p) => p.kind === kind);
    if (kind === 'suite') rows.unshift({ kind, id: 'spade', description: 'The self-play pool: environments written by the designer, round by round.', source: 'built-in' });
    if (!rows.length) continue;
    out.push(`${TITLES[kind]}:`);
    const width = Math.max(...rows.map((r) => r.id.length));
    for (const r of rows) {
      out.push(`  ${r.id.padEnd(width)}  ${r.description}${r.source === 'loaded' ? ' (loaded plugin)' : ''}`);
      if (kind === 'sandbox') for (const p of await protectionsOf(registry, r.id)) out.push(`  ${''.padEnd(width)}    - ${p}`);
    }
    if (kind === 'sandbox') out.push(`  Python programs run in: ${await pythonSandboxInForce(registry, config)}`);
    out.push('');
  }
  process.stdout.write(`${out.join('\n')}`);
  return EXIT.ok;
}
