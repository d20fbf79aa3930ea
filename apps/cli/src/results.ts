import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { PlanResult } from '@mcp-db-bench/agent';
import { RESULT_FILE_VERSION, type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { UsageError } from './errors.js';
import type { Run } from './render/html/index.js';
import { environment } from './serving/environment.js';
import { VERSION } from './version.js';

/** Result files: what run, floor and soak write, and what report, compare and merge read. */

/** A result file from a command's configuration and what the runner measured. */
export function resultOf(config: ResultFile['config'], measured: PlanResult): ResultFile {
  return {
    version: RESULT_FILE_VERSION,
    tool: { name: 'mcp-db-bench', version: VERSION },
    environment: environment(),
    config,
    ...measured,
  };
}

/** The command line as typed, URLs redacted: floor and soak files keep it for their notes. */
export function commandLine(command: string, argv: readonly string[] = process.argv.slice(3)): string {
  return `mcp-db-bench ${command} ${argv.map((a) => (a.includes('://') ? redactUrl(a) : a)).join(' ')}`.trim();
}

export function writeResultFile(file: string, result: ResultFile): void {
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
}

/** The files' results with their labels: given ones in order, else the file names, made unique. */
export function readRuns(files: readonly string[], labels: readonly string[] = []): Run[] {
  if (labels.length > files.length)
    throw new UsageError(
      `${labels.length} labels for ${files.length} file(s): give --label once per file, in the files' order`,
    );
  const taken = new Set<string>();
  return files.map((file, i) => {
    let label = labels[i] ?? basename(file).replace(/\.json$/i, '');
    for (let n = 2; taken.has(label); n++) label = `${labels[i] ?? basename(file).replace(/\.json$/i, '')} (${n})`;
    taken.add(label);
    return { label, result: readResultFile(file) };
  });
}

/** A result file, or one line naming the file and what is wrong with it. */
export function readResultFile(file: string): ResultFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new Error(`cannot read the result file ${file}: ${why}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${file} is not JSON (${(error as Error).message}): is it a result file written by run, floor or soak --out?`,
    );
  }
  const parsed = resultFile.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `${file} is not an mcp-db-bench result file: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`)
        .join('; ')}`,
    );
  }
  return parsed.data;
}
