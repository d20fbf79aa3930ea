/** The agent's choices come from the contract's seeded stream, the one the dataset's rows come from. */
export { Random } from '@mcp-db-bench/contract';
