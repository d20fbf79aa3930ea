export { type ReplayAgentOptions, scaledThink, sessionEra, startReplayAgent } from './agent.js';
export { checkReplayable, parseTrace, type RecordedSession, ReplayError, type Trace, tracedTools } from './trace.js';
