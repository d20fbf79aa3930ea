import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * tedious hands date and time values over as Dates, which hold milliseconds; it keeps the rest
 * of a datetime2, datetimeoffset or time in a `nanosecondsDelta` property (seconds, in 100 ns
 * steps). This plugin turns every Date into ISO text with all its digits, which the shared
 * decoders read like the text the other drivers hand over, so microseconds survive here too.
 */
export class PreciseDates implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of result.rows) {
      for (const key in row) {
        const value = row[key];
        if (value instanceof Date) row[key] = preciseIso(value);
      }
    }
    return result;
  }
}

/** A Date's ISO text, with the digits below the millisecond that tedious keeps beside it. */
export function preciseIso(date: Date): string {
  const iso = date.toISOString();
  const delta = (date as Date & { nanosecondsDelta?: number }).nanosecondsDelta;
  if (!delta) return iso;
  return `${iso.slice(0, -1)}${String(Math.round(delta * 1e7)).padStart(4, '0')}Z`;
}
