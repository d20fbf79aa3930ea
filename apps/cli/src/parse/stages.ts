import type { LoadStage } from '@mcp-db-bench/contract';
import { InvalidArgumentError } from 'commander';
import { parseDuration } from './durations.js';

const MAX_TARGET = 10_000;

/**
 * `--stages` / `--rate-stages`: `DURATION:TARGET` pairs, comma-separated, as k6 writes its
 * stages (`30s:10,1m:50,30s:0`). A duration of 0 (`0s:50`) jumps to the target at once.
 */
export function parseStages(value: string): LoadStage[] {
  const parts = value.split(',').map((s) => s.trim());
  const stages = parts.map((part): LoadStage => {
    const [duration, target, extra] = part.split(':');
    if (target === undefined || extra !== undefined)
      throw new InvalidArgumentError(`"${part}": a stage is DURATION:TARGET, e.g. 30s:10`);
    return { durationMs: stageDuration(part, duration!.trim()), target: stageTarget(part, target.trim()) };
  });
  if (!stages.some((s) => s.durationMs > 0))
    throw new InvalidArgumentError('the stages need some time: every duration is 0');
  if (!stages.some((s) => s.target > 0)) throw new InvalidArgumentError('the stages never rise above 0');
  return stages;
}

function stageDuration(part: string, duration: string): number {
  if (/^0+(\.0*)?(ms|s|m)?$/.test(duration)) return 0;
  try {
    return parseDuration(duration);
  } catch (error) {
    // parseDuration's own reason (a missing unit, over an hour), or the form expected
    const why = /^\d+(\.\d+)?(ms|s|m)?$/.test(duration)
      ? (error as Error).message.replace(
          'a duration must be above 0 and at most 1 hour',
          'a stage lasts at most 1 hour',
        )
      : 'duration must be like 5s, 2m or 500ms';
    throw new InvalidArgumentError(`"${part}": ${why}`);
  }
}

function stageTarget(part: string, target: string): number {
  const n = Number(target);
  if (target === '' || !Number.isInteger(n) || n < 0 || n > MAX_TARGET)
    throw new InvalidArgumentError(`"${part}": target must be a whole number from 0 to ${MAX_TARGET}`);
  return n;
}
