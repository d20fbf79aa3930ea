import { describe, expect, it } from 'vitest';
import { type RunConfig, type RunFlags, runConfig } from '../src/benchmark/config.js';
import { buildProgram } from '../src/program.js';

/** `run`'s flags as commander parses them, and the configuration runConfig makes of them; nothing is started. */
async function configOf(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ flags: RunFlags; before: RunFlags; config: RunConfig }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const program = buildProgram();
    const run = program.commands.find((c) => c.name() === 'run')!;
    let seen: { flags: RunFlags; before: RunFlags; config: RunConfig } | undefined;
    run.action((flags: RunFlags, command) => {
      const before = structuredClone(flags);
      seen = { flags, before, config: runConfig(flags, command) };
    });
    await program.parseAsync(['node', 'mcp-db-bench', 'run', ...args]);
    return seen!;
  } finally {
    process.env = saved;
  }
}

describe('run: flags checked into a new configuration', () => {
  it("--url, the server's name, is --db: repeatable, mixed with --db, in the order given", async () => {
    const { config } = await configOf(['--url', 'sqlite:a.db', '--db', 'sqlite:b.db', '--url', 'sqlite:c.db']);
    expect(config.db).toEqual(['sqlite:a.db', 'sqlite:b.db', 'sqlite:c.db']);
  });

  it('--rate-stages without --agents: a pool of 16 agents; the flags keep their default', async () => {
    const { flags, before, config } = await configOf(['--rate-stages', '1s:10']);
    expect(config.agents).toEqual([16]);
    expect(config.loadStages).toEqual({ kind: 'rate', stages: [{ durationMs: 1000, target: 10 }] });
    expect(flags).toEqual(before);
    expect(flags.agents).toEqual([1, 4, 16]);
  });

  it('a shard has no index rounds; the flags keep theirs', async () => {
    const at = new Date(Date.now() + 60_000).toISOString();
    const { flags, before, config } = await configOf(['--db', 'sqlite:x.db', '--shard', '0/2', '--start-at', at]);
    expect(config.indexes).toEqual([]);
    expect(flags).toEqual(before);
    expect(flags.indexes).toEqual(['baseline', 'optimized']);
  });

  it('a run that compares gets 5 iterations of 1 s steps unless told otherwise; one side keeps 1 of 2 s', async () => {
    const plain = async (args: string[]) => {
      const { config } = await configOf(args);
      return `${config.iterations} × ${config.duration} ms`;
    };
    // the default run compares baseline and optimized indexes on its own SQLite database
    expect(await plain([])).toBe('5 × 1000 ms');
    expect(await plain(['--db', 'sqlite:a.db', '--db', 'sqlite:b.db', '--indexes', 'optimized'])).toBe('5 × 1000 ms');
    expect(await plain(['--target', 'http://127.0.0.1:9/mcp', '--protocol', 'legacy,modern'])).toBe('5 × 1000 ms');
    expect(await plain(['--duration', '3s'])).toBe('5 × 3000 ms');
    expect(await plain(['--iterations', '2'])).toBe('2 × 2000 ms');
    // one side: nothing to compare
    expect(await plain(['--indexes', 'optimized'])).toBe('1 × 2000 ms');
    expect(await plain(['--target', 'http://127.0.0.1:9/mcp'])).toBe('1 × 2000 ms');
    expect(await plain(['--stages', '1s:2'])).toBe('1 × 2000 ms');
  });

  it('MCP_DB_BENCH_DB yields to --target in the configuration only', async () => {
    const { flags, config } = await configOf(['--target', 'http://127.0.0.1:9/mcp'], {
      MCP_DB_BENCH_DB: 'sqlite:env.db',
    });
    expect(config.db).toBeUndefined();
    expect(config.target).toEqual(['http://127.0.0.1:9/mcp']);
    expect(flags.db).toEqual(['sqlite:env.db']);
  });

  it('refuses what cannot go together, naming both', async () => {
    await expect(configOf(['--stages', '1s:2', '--agents', '3'])).rejects.toThrow(
      '--stages cannot be used with --agents: the stages set the agents and the time',
    );
  });

  it("--workload-agents: a workload's own agent counts, the others the plain list; clear errors", async () => {
    const { config } = await configOf([
      '--workloads',
      'handshake,point-read,analytical-entity',
      '--workload-agents',
      'point-read=1,10,50',
      '--workload-agents',
      'handshake=2',
      '--agents',
      '1',
    ]);
    expect(config.agents).toEqual([1]);
    expect(config.workloadAgents).toEqual({ 'point-read': [1, 10, 50], handshake: [2] });
    await expect(configOf(['--workload-agents', 'point-read=1', '--workloads', 'filtered'])).rejects.toThrow(
      "--workload-agents names point-read, not among the run's workloads (filtered): add it to --workloads",
    );
    await expect(
      configOf(['--workloads', 'point-read', '--workload-agents', 'point-read=1', '--stages', '1s:2']),
    ).rejects.toThrow('--workload-agents cannot be used with --stages');
    for (const [value, message] of [
      ['point-reads=1', 'unknown workload point-reads; workloads: handshake, session-init'],
      ['point-read', 'expected WORKLOAD=AGENTS, e.g. point-read=1,10,50; got point-read'],
      ['point-read=1,x', "point-read's agents must be a whole number from 1 to 10000"],
    ])
      await expect(configOf(['--workload-agents', value!])).rejects.toThrow(message);
    await expect(configOf(['--workload-agents', 'point-read=1', '--workload-agents', 'point-read=2'])).rejects.toThrow(
      'point-read is given agent counts twice',
    );
  });

  it("--duration-at: a step's own time by its agent count; counts the run does not step through are refused", async () => {
    const { config } = await configOf(['--agents', '1,10,50', '--duration-at', '10=20s,50=1.5m']);
    expect(config.durationAt).toEqual({ 10: 20_000, 50: 90_000 });
    await expect(configOf(['--agents', '1,10', '--duration-at', '50=90s'])).rejects.toThrow(
      "--duration-at names 50 agents, not among the run's agent counts (1, 10)",
    );
    await expect(configOf(['--stages', '1s:2', '--duration-at', '2=3s'])).rejects.toThrow(
      '--duration-at cannot be used with stages',
    );
    for (const [value, message] of [
      ['10', 'expected AGENTS=TIME, e.g. 10=20s,50=90s; got 10'],
      ['10=20', 'a duration needs its unit'],
      ['10=1s,10=2s', '10 agents are given a duration twice'],
    ])
      await expect(configOf(['--duration-at', value!])).rejects.toThrow(message);
  });

  it('--replay: the trace sets the calls and the protocol, --think scales its pauses', async () => {
    const { config } = await configOf(['--replay', 't.jsonl', '--think', '0.5x', '--agents', '1,10,50']);
    expect(config).toMatchObject({ replay: 't.jsonl', think: 0.5, agents: [1, 10, 50] });
    expect((await configOf(['--replay', 't.jsonl', '--think', '0'])).config.think).toBe(0);
    expect((await configOf(['--replay', 't.jsonl'])).config.think).toBe(1);
    for (const [args, message] of [
      [['--protocol', 'modern'], '--replay cannot be used with --protocol: each session starts as it was recorded'],
      [['--rate', '10'], '--replay cannot be used with --rate'],
      [['--client', 'sdk'], '--replay cannot be used with --client'],
    ] as const)
      await expect(configOf(['--replay', 't.jsonl', ...args])).rejects.toThrow(message);
    await expect(configOf(['--think', '0'])).rejects.toThrow('--think scales the recorded think times of --replay');
    // over stdio as over HTTP
    expect((await configOf(['--replay', 't.jsonl', '--target-cmd', 'mcp-db-server --stdio'])).config).toMatchObject({
      replay: 't.jsonl',
    });
  });
});
