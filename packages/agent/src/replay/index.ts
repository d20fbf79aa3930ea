export { type ReplayAgentOptions, scaledThink, startReplayAgent } from './agent.js';
export { checkReplayable, parseTrace, type RecordedSession, ReplayError, type Trace, tracedTools } from './trace.js';
