/**
 * The load generator watching itself: if this process is short of CPU or its event loop lags,
 * the latencies it reports are its own, not the server's. Injectable so tests stay deterministic.
 */
import { type ELDHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

export interface ProbeReading {
  /** CPU used by this process (user + system) since `start`, microseconds */
  cpuUs: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
}

export interface ClientProbe {
  start(): void;
  stop(): ProbeReading;
}

const DELAY_RESOLUTION_MS = 10;

/**
 * Reads `process.cpuUsage()` and samples event-loop delay every 10 ms. Node records the whole
 * gap between samples (an idle loop reads ~10 ms), so the resolution is taken off: what is
 * reported is how late the loop was.
 */
export function processProbe(): ClientProbe {
  let cpu: NodeJS.CpuUsage | undefined;
  let delay: ELDHistogram | undefined;
  return {
    start() {
      delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
      delay.enable();
      cpu = process.cpuUsage();
    },
    stop() {
      const used = process.cpuUsage(cpu);
      delay?.disable();
      // an empty delay histogram reports garbage extremes on some Node versions
      const sampled = delay !== undefined && delay.count > 0;
      const lateMs = (nanos: number) => (sampled ? Math.max(0, nanos / 1e6 - DELAY_RESOLUTION_MS) : 0);
      return {
        cpuUs: used.user + used.system,
        eventLoopDelayP99Ms: lateMs(delay?.percentile(99) ?? 0),
        eventLoopDelayMaxMs: lateMs(delay?.max ?? 0),
      };
    },
  };
}

/** A probe that reports nothing: for tests and for callers that measure elsewhere. */
export const nullProbe: ClientProbe = {
  start() {},
  stop: () => ({ cpuUs: 0, eventLoopDelayP99Ms: 0, eventLoopDelayMaxMs: 0 }),
};
