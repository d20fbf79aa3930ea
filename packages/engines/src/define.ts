import type { Engine } from './engine.js';
import { STANDARD_LEXICON } from './lexicon.js';
import { insertReturning } from './returning.js';

/** What most engines share; an engine states only where it differs. */
type Defaulted =
  | 'dbSystem'
  | 'family'
  | 'schemes'
  | 'limit'
  | 'encodeParam'
  | 'maxParameters'
  | 'lexicon'
  | 'insertReturningKeys'
  | 'oneProcess'
  | 'cancelsStatements'
  | 'limitIn';

export type EngineDefinition<N extends string = string, F extends string = N> = Omit<Engine<F>, Defaulted | 'name'> &
  Partial<Pick<Engine<F>, Defaulted>> & { readonly name: N };

/**
 * One engine, described in full in its own folder: its URLs, drivers, dialect, introspection,
 * types, errors, bulk loader and test databases. Defaults: selected by the scheme `name:`, its
 * own SQL family, `limit n`, values bound as given, 65,535 parameters per statement, and keys
 * read back with `insert ... returning`, standard SQL's quotes and comments; open in many processes at once, and able to cancel
 * a statement.
 */
export function defineEngine<const N extends string, const F extends string = N>(
  definition: EngineDefinition<N, F>,
): Engine<F> {
  return {
    family: definition.name as string as F,
    dbSystem: definition.name,
    schemes: [definition.name],
    limit: (query, n) => query.limit(n),
    encodeParam: (_, value) => value,
    maxParameters: 65_535,
    lexicon: STANDARD_LEXICON,
    insertReturningKeys: insertReturning(),
    oneProcess: false,
    cancelsStatements: true,
    limitIn: 'parameter',
    ...definition,
  };
}
