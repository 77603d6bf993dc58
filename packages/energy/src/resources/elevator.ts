import type { ApiRecord, Representation } from '../format/representation.ts';
import type { InputField } from '../input/fields.ts';

/** Elevators of a building: what an operation's `elevator_id` names. */
export const elevatorRepresentation: Representation = {
  element: 'elevator',
  listElement: 'elevators',
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'building_id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'manufacturer', type: 'string' },
    { name: 'capacity_lbs', type: 'integer' },
    { name: 'floors_served', type: 'integer' },
    { name: 'created_at', type: 'datetime' },
    { name: 'updated_at', type: 'datetime' },
  ],
};

export const elevatorInput: readonly InputField[] = [
  { attribute: 'name', names: ['name'], kind: 'string', required: true },
  { attribute: 'manufacturer', names: ['manufacturer'], kind: 'string' },
  { attribute: 'capacity_lbs', names: ['capacity_lbs', 'capacity'], kind: 'integer', min: 0 },
  { attribute: 'floors_served', names: ['floors_served'], kind: 'integer', min: 0 },
];

export const elevatorExample: ApiRecord = {
  id: 4,
  building_id: 3,
  name: 'Passenger car A',
  manufacturer: 'Otis',
  capacity_lbs: 3500,
  floors_served: 12,
  created_at: '2013-07-26T16:09:43Z',
  updated_at: '2013-07-26T16:09:43Z',
};
