import type { ApiRecord, Representation } from '../format/representation.ts';
import type { InputField } from '../input/fields.ts';

/** Buildings are not in the spec; these are the fields the Rails app's clients need to own one. */
export const buildingRepresentation: Representation = {
  element: 'building',
  listElement: 'buildings',
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'street_address', type: 'string' },
    { name: 'city', type: 'string' },
    { name: 'state', type: 'string' },
    { name: 'postal_code', type: 'string' },
    { name: 'country', type: 'string' },
    { name: 'floor_area', type: 'float' },
    { name: 'year_built', type: 'integer' },
    { name: 'created_at', type: 'datetime' },
    { name: 'updated_at', type: 'datetime' },
  ],
};

export const buildingInput: readonly InputField[] = [
  { attribute: 'name', names: ['name'], kind: 'string', required: true },
  { attribute: 'street_address', names: ['street_address', 'address'], kind: 'string' },
  { attribute: 'city', names: ['city'], kind: 'string' },
  { attribute: 'state', names: ['state'], kind: 'string' },
  { attribute: 'postal_code', names: ['postal_code', 'zip_code', 'zip'], kind: 'string', maxLength: 20 },
  { attribute: 'country', names: ['country'], kind: 'string' },
  { attribute: 'floor_area', names: ['floor_area'], kind: 'float', min: 0 },
  { attribute: 'year_built', names: ['year_built'], kind: 'integer', min: 1000, max: 2200 },
];

export const buildingExample: ApiRecord = {
  id: 3,
  name: 'Headquarters',
  street_address: '1 Main Street',
  city: 'Boulder',
  state: 'CO',
  postal_code: '80302',
  country: 'US',
  floor_area: 52000.0,
  year_built: 1998,
  created_at: '2013-07-26T16:09:43Z',
  updated_at: '2013-07-26T16:09:43Z',
};
