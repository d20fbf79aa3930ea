import { type PlanResult, RESULT_FILE_VERSION, type ResultFile } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { environment } from '@mcp-db-bench/report';
import { VERSION } from './version.js';

/** A result file from what the runner measured (the run's description included) and this tool's header. */
export function resultOf(measured: PlanResult): ResultFile {
  return {
    version: RESULT_FILE_VERSION,
    tool: { name: 'mcp-db-bench', version: VERSION },
    environment: environment(),
    ...measured,
  };
}

/** The command line as typed, URLs redacted: floor and soak files keep it for their notes. */
export function commandLine(command: string, argv: readonly string[] = process.argv.slice(3)): string {
  return `mcp-db-bench ${command} ${argv.map((a) => (a.includes('://') ? redactUrl(a) : a)).join(' ')}`.trim();
}
