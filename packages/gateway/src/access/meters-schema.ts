import { Type } from 'typebox';

/** A group's totals per meter in a JSON answer (every meter its rows hold, known today or not). */
export const MetersSchema = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  description:
    'Totals per meter charged: input, cached_input, cache_write_5m, cache_write_1h, output, reasoning, web_search_calls, and any other meter the rows hold. A meter with nothing is absent.',
  examples: [{ input: 812, cached_input: 1024, output: 96 }],
});
