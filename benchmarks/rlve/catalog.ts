/**
 * RLVE's environments, read from the source of its Gym/ (never by running it on the host): each
 * identifier of `identifier2environment` with the package and class of its environment and of
 * its ParameterController, and the third-party packages its code imports.
 */
import { DataError } from '../../core/errors.js';
import { PYTHON_PACKAGES } from '../../plugins/sandboxes/python/files.js';
import type { Gym } from './gym.js';

export interface RlveEnvironment {
  /** RLVE's identifier: `Sorting`, `GCDOne_Counting`... */
  id: string;
  /** The package of its environment class: `Gym.environments.sorting`. */
  module: string;
  className: string;
  /** The package of its ParameterController: `Gym.parameter_controllers.sorting`. */
  controllerModule: string;
  controllerClassName: string;
  /** Third-party packages it needs (numpy always: Gym/environment.py, its base class, seeds it). */
  packages: string[];
}

/** The 16 environments of SPADE's RLVE runs (`RLVE_ENV_SET=official16` in cmd/games/train_fixed_rlve_*.sh). */
export const OFFICIAL16 = [
  'Division', 'EuclidGame', 'GCDOne_Counting', 'HamiltonianPath', 'LampChanging', 'LargestConvexPolygon', 'Multiplication',
  'PCPPermutation', 'Path_NoGoingBack_Counting', 'SAT', 'ShortestPath', 'Sorting', 'SpiralMatrix', 'SubsequenceReversalLNDS',
  'UndamagedSubmatrixCounting', 'WYRLevelingGround',
] as const;

/** `identifier -> class` of a registry file, and `class -> package` of its imports. */
function registry(source: string, packagePrefix: string, dictionary: string, where: string): Map<string, { module: string; className: string }> {
  const imports = new Map<string, string>();
  for (const match of source.matchAll(new RegExp(`^from\\s+(${packagePrefix.replace(/\./g, '\\.')}(?:\\.\\w+)+)\\s+import\\s+([\\w\\s,]+?)\\s*$`, 'gm'))) {
    for (const name of match[2]!.split(',')) imports.set(name.trim(), match[1]!);
  }
  const start = source.indexOf(`${dictionary} = {`);
  if (start < 0) throw new DataError(where, undefined, `no ${dictionary} = {...} in RLVE's Gym`);
  const body = source.slice(start, source.indexOf('}', start));
  const entries = new Map<string, { module: string; className: string }>();
  for (const match of body.matchAll(/"([^"]+)"\s*:\s*(\w+)\s*,?/g)) {
    const module = imports.get(match[2]!);
    if (!module) throw new DataError(where, undefined, `${dictionary}["${match[1]}"] names ${match[2]}, which the file does not import`);
    entries.set(match[1]!, { module, className: match[2]! });
  }
  return entries;
}

const PACKAGE_IMPORT = new RegExp(`^\\s*(?:import|from)\\s+(${PYTHON_PACKAGES.join('|')})\\b`, 'gm');

/** Every environment of the Gym that has both an environment class and a ParameterController, by identifier. */
export function readCatalog(gym: Gym): RlveEnvironment[] {
  const environments = registry(required(gym, 'environments/__init__.py'), 'Gym.environments', 'identifier2environment', 'Gym/environments/__init__.py');
  const controllers = registry(required(gym, 'parameter_controllers/__init__.py'), 'Gym.parameter_controllers', 'identifier2controller', 'Gym/parameter_controllers/__init__.py');
  const files = gym.files();
  const catalog: RlveEnvironment[] = [];
  for (const [id, environment] of environments) {
    const controller = controllers.get(id);
    if (!controller) continue; // RLVE's own data source draws only from environments with a controller
    const folder = `${environment.module.split('.').slice(1, 3).join('/')}/`;
    const packages = new Set<string>(['numpy']);
    for (const file of files.filter((f) => f.startsWith(folder) && f.endsWith('.py'))) {
      for (const match of gym.source(file)!.matchAll(PACKAGE_IMPORT)) packages.add(match[1]!);
    }
    catalog.push({
      id,
      module: environment.module,
      className: environment.className,
      controllerModule: controller.module,
      controllerClassName: controller.className,
      packages: PYTHON_PACKAGES.filter((p) => packages.has(p)),
    });
  }
  return catalog;
}

function required(gym: Gym, file: string): string {
  const source = gym.source(file);
  if (source === undefined) throw new DataError(`${gym.archive}: Gym/${file}`, undefined, 'missing from RLVE\'s Gym');
  return source;
}
