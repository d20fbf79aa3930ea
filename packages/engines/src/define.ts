import type { EngineProfile } from './engine.js';
import { insertReturning } from './returning.js';

/** What most engines share; an engine states only where it differs. */
type Defaulted = 'family' | 'schemes' | 'limit' | 'encodeParam' | 'maxParameters' | 'insertReturningKeys' | 'oneProcess' | 'cancelsStatements';

export type EngineDefinition = Omit<EngineProfile, Defaulted> & Partial<Pick<EngineProfile, Defaulted>>;

/**
 * One engine, described in full in its own folder: its URLs, drivers, dialect, introspection,
 * types, errors, bulk loader and test databases. Defaults: selected by the scheme `name:`, its
 * own SQL family, `limit n`, values bound as given, 65,535 parameters per statement, and keys
 * read back with `insert ... returning`; open in many processes at once, and able to cancel
 * a statement.
 */
export function defineEngine(definition: EngineDefinition): EngineProfile {
  return {
    family: definition.name,
    schemes: [definition.name],
    limit: (query, n) => query.limit(n),
    encodeParam: (_, value) => value,
    maxParameters: 65_535,
    insertReturningKeys: insertReturning(),
    oneProcess: false,
    cancelsStatements: true,
    ...definition,
  };
}
