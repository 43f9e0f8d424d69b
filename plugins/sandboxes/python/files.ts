/**
 * Where the Python files shared by the two Python sandboxes live: loader.py (how a program is
 * loaded and its methods called), math_verify.py (SPADE's math_verify stand-in) and
 * tool_use_base_env.py (SPADE's base class of tool-use games). Both sandboxes read them from
 * here, so a program is loaded the same way in either. And the third-party packages they know.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding the shared Python files (next to this file, in sources and in dist/). */
export const PYTHON_DIR = path.dirname(fileURLToPath(import.meta.url));

/**
 * The third-party packages SPADE's, RLVE's and reasoning-gym's programs use (loader.py's
 * PACKAGES): the cpython sandbox imports each once a program's code names it, so a suite whose
 * programs reach them through a module of its own names them in the program.
 */
export const PYTHON_PACKAGES = ['numpy', 'networkx', 'sympy'] as const;

/** The shared Python files, by name. */
export const SHARED_PYTHON_FILES = ['loader.py', 'math_verify.py', 'tool_use_base_env.py'] as const;
