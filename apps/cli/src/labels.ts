/** The protocol eras a client can speak (`auto` negotiates: 2026-07-28 when offered, else 2025). */
export type ProtocolChoice = 'legacy' | 'modern' | 'auto';

const ERA_NAMES: Record<ProtocolChoice, string> = { legacy: '2025 session', modern: '2026', auto: 'auto era' };

/** How a report row names what it measured: the database or server, and the protocol era. */
export const eraLabel = (target: string, era: ProtocolChoice): string => `${target} ${ERA_NAMES[era]}`;
