import { Command, Option } from 'commander';
import { compareCommand } from './commands/compare.js';
import { doctorCommand } from './commands/doctor.js';
import { floorCommand } from './commands/floor.js';
import { indexCommand } from './commands/indexes.js';
import { mergeCommand } from './commands/merge.js';
import { recordCommand } from './commands/record.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { seedCommand } from './commands/seed.js';
import { serveCommand } from './commands/serve.js';
import { soakCommand } from './commands/soak.js';
import { studyCommand } from './commands/study.js';
import { commandNames, EXIT, redactAll, unknownCommand } from './errors.js';
import { examples, parseDbUrl } from './options.js';
import { VERSION } from './version.js';

/** The CLI: one file per command under commands/, registered here. */
export function buildProgram(): Command {
  const program = new Command('mcp-db-bench')
    .description('Benchmark databases the way AI agents use them: through MCP.')
    .version(VERSION)
    .addCommand(runCommand(), { isDefault: true })
    .addCommand(reportCommand())
    .addCommand(compareCommand())
    .addCommand(mergeCommand())
    .addCommand(seedCommand())
    .addCommand(indexCommand())
    .addCommand(serveCommand())
    .addCommand(doctorCommand())
    .addCommand(floorCommand())
    .addCommand(soakCommand())
    .addCommand(recordCommand())
    .addCommand(studyCommand())
    .addHelpText(
      'after',
      '\nWith no command, mcp-db-bench runs `run`. Every command that takes a database reads --db from MCP_DB_BENCH_DB when it is not given.\n' +
        'Exit codes: 0 done, 1 a failure while running, 2 a mistake on the command line, 130 interrupted (Ctrl-C).\n' +
        examples(
          'mcp-db-bench',
          'mcp-db-bench run --db postgres://bench:bench@127.0.0.1:5432/bench --out result.json',
          'mcp-db-bench report result.json --format markdown',
        ),
    );
  for (const command of [program, ...program.commands]) {
    configure(command);
    urlAlias(command);
  }
  return program;
}

/**
 * `--url`, the server's name for its database, works wherever `--db` does (hidden from help):
 * one name for one idea across both bins, whichever a user learned first.
 */
function urlAlias(command: Command): void {
  const db = command.options.find((o) => o.attributeName() === 'db');
  if (!db) return;
  command.addOption(new Option('--url <url>', 'same as --db').hideHelp());
  command.on('option:url', (value: string) => {
    let url: string;
    try {
      url = parseDbUrl(value);
    } catch (error) {
      // Commander's own wording, as for a bad --db.
      return command.error(`error: option '--url <url>' argument '${value}' is invalid. ${(error as Error).message}`, {
        exitCode: 2,
        code: 'commander.invalidArgument',
      });
    }
    const given = command.getOptionValueSource('db') === 'cli' ? command.getOptionValue('db') : [];
    command.setOptionValueWithSource('db', db.variadic ? [...given, url] : url, 'cli');
  });
}

/** Every command alike: commander errors thrown (bin.ts exits 2 on them), one line each, with a suggestion. */
function configure(command: Command): void {
  const where = command.parent ? `mcp-db-bench ${command.name()}` : 'mcp-db-bench';
  command
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      outputError: (text, write) => write(`mcp-db-bench: ${usageLine(text)}; see ${where} --help\n`),
    });
}

/** Commander's message as one line: `error: ` dropped, a suggestion kept, a rejected value named after the reason. */
export function usageLine(text: string): string {
  let line = text.trim().replace(/^error: /, '');
  line = line.replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)');
  const invalid = /^option '(\S+)[^']*' (?:argument '(.*)'|value '(.*)' from env '(\S+)') is invalid\. (.*)$/s.exec(
    line,
  );
  if (invalid) {
    const [, flag, arg, envValue, env, said] = invalid as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
      string | undefined,
      string,
    ];
    const reason = said.replace(/^Allowed choices are (.*)\.$/, 'must be one of $1');
    const value = arg ?? envValue ?? '';
    const source = env ? ` (from ${env})` : '';
    const named = reason.startsWith('must ')
      ? `${flag} ${reason}`
      : reason.startsWith(flag)
        ? reason
        : reason.startsWith(`${flag.slice(2)} `)
          ? `--${reason}`
          : `${flag}: ${reason}`;
    line = new RegExp(`(^|[\\s'"])${escapeRegExp(value)}([\\s'",;)]|$)`).test(reason)
      ? `${named}${source}`
      : `${named}: ${value}${source}`;
  }
  return redactAll(line.replace(/\s*\n\s*/g, ' '));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Parses and runs. A first word that is not a command is a usage error naming the closest
 * command, not an argument of the default command `run`. `program` is given by a test that
 * replaced the actions (apps/cli/test/doc-commands.test.ts checks the docs' command lines).
 */
export async function parseCli(argv: readonly string[], program = buildProgram()): Promise<void> {
  const first = argv[2];
  if (first !== undefined && !first.startsWith('-') && !commandNames(program).includes(first)) {
    program.error(unknownCommand(program, first), { exitCode: EXIT.usage, code: 'commander.unknownCommand' });
  }
  await program.parseAsync([...argv]);
}
