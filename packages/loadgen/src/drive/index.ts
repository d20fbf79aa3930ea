export { type Clock, FakeClock, realClock } from './clock.js';
export {
  type CpuSnapshot,
  cpuSnapshot,
  findServers,
  interferenceBetween,
  localPort,
  type MachineProbe,
  type MachineWindow,
  machineProbe,
  type OwnSpec,
} from './machine.js';
export { type MeasureCallsOptions, type MeasuredCalls, measureCalls } from './measure-calls.js';
export { type ClientProbe, nullProbe, type ProbeReading, processProbe } from './probe.js';
export { cpuUnder } from './process-cpu.js';
export {
  type AgentLoop,
  DEFAULT_LATE_TOLERANCE_MS,
  errorKindOf,
  type LoopMode,
  type OpenLoopStats,
  type OpOutcome,
  QUEUE_PER_AGENT,
  type RunStepOptions,
  runStep,
  type SecondTick,
  type StepMeasurement,
} from './run-step.js';
export {
  type AgentChange,
  agentChanges,
  agentsAt,
  arrivals,
  meanAgents,
  peakTarget,
  type Stage,
  stagesDuration,
  targetAt,
} from './stages.js';
