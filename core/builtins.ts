/**
 * The built-in plugins, by id. Each imports its module only inside create(), so an SDK or an
 * interpreter is never loaded unless a run uses it.
 */
import type { BuiltinEntry, PluginDefinition } from './plugin.js';

const builtin = (plugin: PluginDefinition): BuiltinEntry => ({
  kind: plugin.kind,
  id: plugin.id,
  description: plugin.description,
  load: async () => plugin,
});

export const BUILTINS: readonly BuiltinEntry[] = [
  // Roles
  builtin({
    kind: 'designer',
    id: 'reference',
    description: 'Offline reference policy (not a model): writes JavaScript environments from parameterised families and moves their difficulty toward the agent\'s frontier.',
    create: async () => (await import('../plugins/providers/reference/designer.js')).createReferenceDesigner(),
  }),
  builtin({
    kind: 'agent',
    id: 'reference',
    description: 'Offline reference policy (not a model): a budgeted search agent that reads the observations.',
    create: async (options) => (await import('../plugins/providers/reference/agent.js')).createReferenceAgent(options as { budget?: number }),
  }),
  // Sandboxes
  builtin({
    kind: 'sandbox',
    id: 'isolated-vm',
    description: 'JavaScript in a separate V8 isolate (isolated-vm): time, memory and output limits, no host access. The default.',
    create: async (options) => (await import('../plugins/sandboxes/isolated-vm.js')).createIsolatedVmSandbox(options),
  }),
  // Static suites
  builtin({
    kind: 'suite',
    id: 'procedural',
    description: 'The reference families at fixed difficulties and horizons 1 to 64, with a frozen seed.',
    create: async () => (await import('../benchmarks/procedural.js')).createProceduralSuite(),
  }),
];
