import { ToolError } from '@mcp-db-bench/contract';

const MISSING_MODULE = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/**
 * Imports an engine's driver package on first use, so a server that only talks to SQLite
 * never loads `pg` or `tedious`, and an install that lacks a driver (a trimmed deployment,
 * a failed native build) gets an actionable error instead of a crash at start-up.
 *
 * Returns the CommonJS `module.exports` when the package is CommonJS (Node puts it on
 * `default`), so callers see the same object as `require(pkg)`.
 */
export async function loadDriver<T>(engine: string, pkg: string): Promise<T> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pkg)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && MISSING_MODULE.has(code)) {
      throw new ToolError(
        'database_unavailable',
        `The ${engine} driver is not installed: run 'npm install ${pkg}' (under npx, add '-p ${pkg}')`,
        { cause: error },
      );
    }
    throw error;
  }
  const interop = mod.default;
  return (interop !== undefined && interop !== null ? interop : mod) as T;
}
