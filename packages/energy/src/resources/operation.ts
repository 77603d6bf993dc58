import type { ApiRecord, Representation } from '../format/representation.ts';
import type { InputField } from '../input/fields.ts';

/** The operation as the spec lists its response fields, in that order. */
export const operationRepresentation: Representation = {
  element: 'operation',
  listElement: 'operations',
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'building_id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'misc_electric_load', type: 'float' },
    { name: 'misc_gas_load', type: 'float' },
    { name: 'total_occupants', type: 'integer' },
    { name: 'setpoint_heating', type: 'integer' },
    { name: 'setpoint_cooling', type: 'integer' },
    { name: 'weekdays_open', type: 'boolean' },
    { name: 'weekday_open_time', type: 'string' },
    { name: 'weekday_close_time', type: 'string' },
    { name: 'saturdays_open', type: 'boolean' },
    { name: 'saturday_open_time', type: 'string' },
    { name: 'saturday_close_time', type: 'string' },
    { name: 'sundays_open', type: 'boolean' },
    { name: 'sunday_open_time', type: 'string' },
    { name: 'sunday_close_time', type: 'string' },
    { name: 'created_at', type: 'datetime' },
    { name: 'updated_at', type: 'datetime' },
  ],
};

/**
 * Writable attributes. The spec's parameter names come first; the response names (and the
 * spec example's `weekdays_open`, `weekday_open_time`, ...) are accepted as aliases.
 */
export const operationInput: readonly InputField[] = [
  { attribute: 'name', names: ['name'], kind: 'string' },
  { attribute: 'misc_electric_load', names: ['misc_electric_load'], kind: 'float', min: 0 },
  { attribute: 'misc_gas_load', names: ['misc_gas_load'], kind: 'float', min: 0 },
  { attribute: 'total_occupants', names: ['total_occupants'], kind: 'integer', min: 0 },
  { attribute: 'setpoint_heating', names: ['setpoint_heating'], kind: 'integer' },
  { attribute: 'setpoint_cooling', names: ['setpoint_cooling'], kind: 'integer' },
  { attribute: 'elevator_id', names: ['elevator_id'], kind: 'integer' },
  { attribute: 'weekdays_open', names: ['weekdays_open'], kind: 'boolean' },
  { attribute: 'weekday_open_time', names: ['weekdays_open_time', 'weekday_open_time'], kind: 'time' },
  { attribute: 'weekday_close_time', names: ['weekdays_close_time', 'weekday_close_time'], kind: 'time' },
  { attribute: 'saturdays_open', names: ['saturday_open', 'saturdays_open'], kind: 'boolean' },
  { attribute: 'saturday_open_time', names: ['saturday_open_time'], kind: 'time' },
  { attribute: 'saturday_close_time', names: ['saturday_close_time'], kind: 'time' },
  { attribute: 'sundays_open', names: ['sunday_open', 'sundays_open'], kind: 'boolean' },
  { attribute: 'sunday_open_time', names: ['sunday_open_time'], kind: 'time' },
  { attribute: 'sunday_close_time', names: ['sunday_close_time'], kind: 'time' },
];

export const operationExample: ApiRecord = {
  id: 7,
  building_id: 3,
  name: 'Standard office hours',
  misc_electric_load: 1.5,
  misc_gas_load: null,
  total_occupants: 120,
  setpoint_heating: 70,
  setpoint_cooling: 76,
  weekdays_open: true,
  weekday_open_time: '0800',
  weekday_close_time: '1800',
  saturdays_open: true,
  saturday_open_time: '0900',
  saturday_close_time: '1300',
  sundays_open: false,
  sunday_open_time: null,
  sunday_close_time: null,
  created_at: '2013-07-26T16:09:43Z',
  updated_at: '2013-07-26T16:09:43Z',
};

/** The spec's own example body style: integers for times, `t` for booleans, response names. */
export const operationInputExample = {
  name: 'Standard office hours',
  misc_electric_load: 1.5,
  total_occupants: 120,
  setpoint_heating: 70,
  setpoint_cooling: 76,
  weekdays_open: 't',
  weekday_open_time: 800,
  weekday_close_time: 1800,
  saturdays_open: 't',
  saturday_open_time: '9:00 am',
  saturday_close_time: '1:00 pm',
  sundays_open: 'f',
};
