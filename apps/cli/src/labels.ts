import { ERA_NAMES } from '@mcp-db-bench/contract';

/** The protocol eras a client can speak (`auto` negotiates: 2026-07-28 when offered, else 2025). */
export type ProtocolChoice = 'legacy' | 'modern' | 'auto';

/** How a report row names what it measured: the database or server, and the protocol era. */
export const eraLabel = (target: string, era: ProtocolChoice): string => `${target} ${ERA_NAMES[era]}`;
